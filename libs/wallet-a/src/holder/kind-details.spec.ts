import { passKindOf, type KindSource } from '@app/kinds';
import { kindDetails as detailsOf } from './kind-details';

/** The page's section of a pass's kind, or of a holder's copy on its own day. */
const kindDetails = ({ metadata, holderDate }: { metadata: KindSource; holderDate?: string }) =>
  detailsOf(passKindOf(metadata, { relevantDate: holderDate }));

const EVENT = {
  name: 'Summer Gala',
  venueName: 'Riverside Hall',
  venueAddress: '1 River Street',
  startTime: '2026-05-01T19:30:00+02:00',
  endTime: '2026-05-01T23:00:00+02:00',
  doorsOpen: '2026-05-01T18:45:00+02:00',
};

describe('kind details on the holder page', () => {
  it("shows a ticket's event, its date, doors, end and venue", () => {
    expect(kindDetails({ metadata: { passType: 'eventTicket', event: EVENT } })).toEqual({
      heading: 'Summer Gala',
      route: null,
      rows: [
        { label: 'Date', value: 'Fri 1 May 2026, 19:30', dateTime: EVENT.startTime },
        { label: 'Doors', value: '18:45', dateTime: EVENT.doorsOpen },
        { label: 'Ends', value: 'Fri 1 May 2026, 23:00', dateTime: EVENT.endTime },
        { label: 'Venue', value: 'Riverside Hall\n1 River Street' },
      ],
    });
  });

  it("shows a holder's own day as the ticket's date, without the pass's doors and end", () => {
    const details = kindDetails({
      metadata: { passType: 'eventTicket', event: EVENT },
      holderDate: '2026-05-02T19:30:00+02:00',
    });
    // The doors and the end are times of the pass's day, 1 May.
    expect(details?.rows.map((row) => row.label)).toEqual(['Date', 'Venue']);
    expect(JSON.stringify(details)).not.toContain('2026-05-01');
    expect(details?.rows[0]).toEqual({
      label: 'Date',
      value: 'Sat 2 May 2026, 19:30',
      dateTime: '2026-05-02T19:30:00+02:00',
    });
  });

  it("shows a coupon's offer, provider, channel and terms", () => {
    expect(
      kindDetails({
        metadata: {
          passType: 'coupon',
          offer: {
            title: '20 % off',
            provider: 'Brand',
            redemptionChannel: 'both',
            finePrint: 'One each',
          },
        },
      }),
    ).toEqual({
      heading: '20 % off',
      route: null,
      rows: [
        { label: 'From', value: 'Brand' },
        { label: 'Redeem', value: 'In store or online' },
        { label: 'Terms', value: 'One each' },
      ],
    });
  });

  it("shows a boarding pass's route, carrier, number and times", () => {
    const transit = {
      transitType: 'air' as const,
      carrier: 'Brand Air',
      number: 'BA123',
      origin: { code: 'LHR', name: 'London Heathrow' },
      destination: { code: 'SFO', name: 'San Francisco' },
      departureTime: '2026-05-01T08:00:00+01:00',
      arrivalTime: '2026-05-01T11:10:00-07:00',
    };
    expect(kindDetails({ metadata: { passType: 'boardingPass', transit } })).toEqual({
      heading: 'Flight Brand Air BA123',
      route: { from: transit.origin, to: transit.destination },
      rows: [
        { label: 'Departs', value: 'Fri 1 May 2026, 08:00', dateTime: transit.departureTime },
        { label: 'Arrives', value: 'Fri 1 May 2026, 11:10', dateTime: transit.arrivalTime },
      ],
    });
    const bus = kindDetails({
      metadata: {
        passType: 'boardingPass',
        transit: { ...transit, transitType: 'bus', carrier: undefined, number: undefined },
      },
    });
    expect(bus?.heading).toBe('Bus');
  });

  it("lists a festival's upcoming events in order: when, what, where; none on a holder's day", () => {
    const festival = {
      passType: 'eventTicket' as const,
      event: {
        ...EVENT,
        upcoming: [
          {
            identifier: 'day-1',
            name: 'Opening night',
            startTime: '2026-05-01T18:00:00+02:00',
            endTime: '2026-05-01T23:30:00+02:00',
            venueName: 'Main Stage',
          },
          { identifier: 'day-2', name: 'Closing concert', startTime: '2026-05-02T20:00:00+02:00' },
        ],
      },
    };
    const details = kindDetails({ metadata: festival });
    // The ticket's own rows stay as they are.
    expect(details?.rows.map((row) => row.label)).toEqual(['Date', 'Doors', 'Ends', 'Venue']);
    expect(details?.upcoming).toEqual([
      {
        identifier: 'day-1',
        name: 'Opening night',
        when: 'Fri 1 May 2026, 18:00–23:30',
        dateTime: '2026-05-01T18:00:00+02:00',
        venue: 'Main Stage',
      },
      {
        identifier: 'day-2',
        name: 'Closing concert',
        when: 'Sat 2 May 2026, 20:00',
        dateTime: '2026-05-02T20:00:00+02:00',
        venue: 'Riverside Hall',
      },
    ]);
    expect(
      kindDetails({ metadata: festival, holderDate: '2026-05-02T20:00:00+02:00' }),
    ).not.toHaveProperty('upcoming');
    expect(kindDetails({ metadata: { passType: 'eventTicket', event: EVENT } })).not.toHaveProperty(
      'upcoming',
    );
  });

  it('adds nothing for store cards, generic passes and passes without a passType', () => {
    expect(kindDetails({ metadata: {} })).toBeNull();
    expect(kindDetails({ metadata: { passType: 'storeCard' } })).toBeNull();
    expect(kindDetails({ metadata: { passType: 'generic' } })).toBeNull();
  });
});
