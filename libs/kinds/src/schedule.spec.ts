import type { EventDto, TransitDto } from './kind-payloads';
import { passKindOf } from './kinds';
import { nextEvent } from './schedule';

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

  describe("a festival's or a season ticket's events", () => {
    const FESTIVAL: EventDto = {
      ...EVENT,
      startTime: '2026-07-10T16:00:00+02:00',
      endTime: '2026-07-12T23:30:00+02:00',
      doorsOpen: undefined,
      upcoming: [
        {
          identifier: 'day-1',
          name: 'Opening night',
          startTime: '2026-07-10T18:00:00+02:00',
          endTime: '2026-07-10T23:30:00+02:00',
        },
        // A night that lasts past a day: Wallet would drop it as an interval.
        {
          identifier: 'day-2',
          name: 'All-nighter',
          startTime: '2026-07-11T14:00:00+02:00',
          endTime: '2026-07-12T16:00:00+02:00',
        },
        { identifier: 'day-3', name: 'Closing concert', startTime: '2026-07-12T20:00:00+02:00' },
      ],
    };
    const schedule = passKindOf({ passType: 'eventTicket', event: FESTIVAL }).schedule;

    it('makes each event relevant on its own: its interval within a day, else its start', () => {
      expect(schedule.events).toEqual([
        {
          id: 'day-1',
          start: '2026-07-10T18:00:00+02:00',
          end: '2026-07-10T23:30:00+02:00',
          relevance: {
            startDate: '2026-07-10T18:00:00+02:00',
            endDate: '2026-07-10T23:30:00+02:00',
          },
        },
        {
          id: 'day-2',
          start: '2026-07-11T14:00:00+02:00',
          end: '2026-07-12T16:00:00+02:00',
          relevance: { date: '2026-07-11T14:00:00+02:00' },
        },
        {
          id: 'day-3',
          start: '2026-07-12T20:00:00+02:00',
          relevance: { date: '2026-07-12T20:00:00+02:00' },
        },
      ]);
      // The festival's own date is still its start.
      expect(schedule.start).toBe(FESTIVAL.startTime);
      expect(schedule.relevantDate).toBe(FESTIVAL.startTime);
    });

    it("leaves them out of a holder's own day, a ticket for that day alone", () => {
      const own = passKindOf(
        { passType: 'eventTicket', event: FESTIVAL },
        { relevantDate: '2026-07-11T14:00:00+02:00' },
      );
      expect(own.schedule).not.toHaveProperty('events');
      expect(own.type === 'eventTicket' && own.facts?.upcoming).toBeUndefined();
    });

    it('has none for a ticket without events, or with an empty list', () => {
      expect(passKindOf({ passType: 'eventTicket', event: EVENT }).schedule).not.toHaveProperty(
        'events',
      );
      const empty = passKindOf({ passType: 'eventTicket', event: { ...EVENT, upcoming: [] } });
      expect(empty.schedule).not.toHaveProperty('events');
      expect(nextEvent(empty.schedule, new Date())).toBeUndefined();
    });

    it('gives the next event: the first whose end, or start without one, is not yet past', () => {
      const at = (iso: string) => nextEvent(schedule, new Date(iso))?.id;
      expect(at('2026-07-01T00:00:00Z')).toBe('day-1');
      // Under way: still the next one until it ends.
      expect(at('2026-07-10T23:00:00+02:00')).toBe('day-1');
      expect(at('2026-07-10T23:31:00+02:00')).toBe('day-2');
      expect(at('2026-07-12T17:00:00+02:00')).toBe('day-3');
      // Without an end, past once it has started.
      expect(at('2026-07-12T20:00:00+02:00')).toBe('day-3');
      // All past: the last one.
      expect(at('2026-07-12T20:01:00+02:00')).toBe('day-3');
    });

    it('takes the earliest of the coming events, whatever their order in the pass', () => {
      const shuffled = passKindOf({
        passType: 'eventTicket',
        event: { ...FESTIVAL, upcoming: [...FESTIVAL.upcoming!].reverse() },
      }).schedule;
      expect(nextEvent(shuffled, new Date('2026-07-01T00:00:00Z'))?.id).toBe('day-1');
      expect(nextEvent(shuffled, new Date('2027-01-01T00:00:00Z'))?.id).toBe('day-3');
    });

    it("gives each event's facts: name, date, end and venue (its own, else the ticket's)", () => {
      const kind = passKindOf({
        passType: 'eventTicket',
        event: {
          ...FESTIVAL,
          upcoming: [{ ...FESTIVAL.upcoming![0], venueName: 'Main Stage' }, FESTIVAL.upcoming![2]],
        },
      });
      expect(kind.type === 'eventTicket' && kind.facts?.upcoming).toEqual([
        {
          identifier: 'day-1',
          name: 'Opening night',
          date: {
            key: 'event.start',
            label: 'Date',
            value: '2026-07-10T18:00:00+02:00',
            time: 'dateTime',
          },
          end: {
            key: 'event.end',
            label: 'Ends',
            value: '2026-07-10T23:30:00+02:00',
            time: 'dateTime',
          },
          venue: { key: 'event.venue', label: 'Venue', value: 'Main Stage' },
          atTicketVenue: false,
        },
        {
          identifier: 'day-3',
          name: 'Closing concert',
          date: {
            key: 'event.start',
            label: 'Date',
            value: '2026-07-12T20:00:00+02:00',
            time: 'dateTime',
          },
          venue: { key: 'event.venue', label: 'Venue', value: 'Riverside Hall' },
          atTicketVenue: true,
        },
      ]);
    });
  });
});
