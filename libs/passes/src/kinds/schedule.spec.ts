import type { EventDto, TransitDto } from '../dto/pass-kind.dto';
import { passKindOf } from './kinds';

const EVENT: EventDto = {
  name: 'Summer Gala',
  venueName: 'Riverside Hall',
  startTime: '2026-07-01T19:30:00+02:00',
  endTime: '2026-07-01T23:00:00+02:00',
  doorsOpen: '2026-07-01T18:30:00+02:00',
};
const TRIP: TransitDto = {
  transitType: 'bus',
  origin: { code: 'AIR', name: 'Airport' },
  destination: { code: 'CTY', name: 'City centre' },
  departureTime: '2026-05-01T09:00:00+01:00',
  arrivalTime: '2026-05-01T09:45:00+01:00',
};
const HOLDER_DAY = '2026-07-02T19:30:00+02:00';

describe("the schedule of a pass and of a holder's copy", () => {
  it("gives an event's times, relevant from its doors to its end", () => {
    expect(passKindOf({ passType: 'eventTicket', event: EVENT }).schedule).toEqual({
      start: EVENT.startTime,
      end: EVENT.endTime,
      doorsOpen: EVENT.doorsOpen,
      ownDay: null,
      relevantDate: EVENT.startTime,
      relevantInterval: { startDate: EVENT.doorsOpen, endDate: EVENT.endTime },
      durationSeconds: 12_600,
    });
  });

  it("starts a holder's ticket on its own day, with no time of the pass's day", () => {
    const schedule = passKindOf(
      { passType: 'eventTicket', event: EVENT, relevantDate: '2026-07-01T18:00:00+02:00' },
      { relevantDate: HOLDER_DAY },
    ).schedule;
    expect(schedule).toEqual({
      start: HOLDER_DAY,
      ownDay: HOLDER_DAY,
      relevantDate: HOLDER_DAY,
    });
  });

  it("gives every fact of a holder's ticket from that schedule", () => {
    const kind = passKindOf(
      { passType: 'eventTicket', event: EVENT },
      { relevantDate: HOLDER_DAY },
    );
    expect(kind.type === 'eventTicket' && kind.facts).toEqual({
      heading: 'Summer Gala',
      name: { key: 'event.name', label: 'Event', value: 'Summer Gala' },
      date: { key: 'event.start', label: 'Date', value: HOLDER_DAY, time: 'dateTime' },
      venue: { key: 'event.venue', label: 'Venue', value: 'Riverside Hall' },
    });
  });

  it("keeps a trip at its departure; a holder's date only moves the lock screen", () => {
    const schedule = passKindOf(
      { passType: 'boardingPass', transit: TRIP },
      { relevantDate: '2026-05-01T08:30:00+01:00' },
    ).schedule;
    expect(schedule).toEqual({
      start: TRIP.departureTime,
      end: TRIP.arrivalTime,
      ownDay: null,
      relevantDate: '2026-05-01T08:30:00+01:00',
      durationSeconds: 2700,
    });
  });

  it("dates a card by the pass's relevant date or the holder's, and nothing else", () => {
    expect(passKindOf({}).schedule).toEqual({ ownDay: null });
    expect(passKindOf({ relevantDate: '2026-05-01T10:00Z' }).schedule).toEqual({
      ownDay: null,
      relevantDate: '2026-05-01T10:00Z',
    });
    expect(
      passKindOf({ passType: 'generic' }, { relevantDate: '2026-05-02T10:00Z' }).schedule,
    ).toEqual({ ownDay: null, relevantDate: '2026-05-02T10:00Z' });
  });

  it('leaves out an interval longer than a day, or ending before it starts', () => {
    const festival = { ...EVENT, endTime: '2026-07-03T23:00:00+02:00' };
    expect(passKindOf({ passType: 'eventTicket', event: festival }).schedule).not.toHaveProperty(
      'relevantInterval',
    );
    const backwards = { ...EVENT, endTime: '2026-07-01T18:00:00+02:00' };
    const schedule = passKindOf({ passType: 'eventTicket', event: backwards }).schedule;
    expect(schedule).not.toHaveProperty('relevantInterval');
    expect(schedule).not.toHaveProperty('durationSeconds');
  });
});
