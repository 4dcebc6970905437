import type { KindUnit } from './kind-unit';

/**
 * An event ticket: the event's name, date and venue, and when known its doors, end and address.
 * Its times come from the schedule, so a holder's own day is its date and the pass's doors and
 * end, times of another day, are not shown.
 */
export const EVENT_TICKET: KindUnit<'eventTicket'> = {
  block: 'event',
  face: { headerFields: 3, primaryFields: 1, secondaryFields: 4, auxiliaryFields: 4 },
  times: (event) => ({
    start: event.startTime,
    end: event.endTime,
    doorsOpen: event.doorsOpen,
    takesHolderDay: true,
    lasts: true,
  }),
  facts: (event, schedule) => ({
    heading: event.name,
    name: { key: 'event.name', label: 'Event', value: event.name },
    date: {
      key: 'event.start',
      label: 'Date',
      value: schedule.start ?? event.startTime,
      time: 'dateTime',
    },
    venue: { key: 'event.venue', label: 'Venue', value: event.venueName },
    ...(schedule.doorsOpen !== undefined
      ? { doors: { key: 'event.doors', label: 'Doors', value: schedule.doorsOpen, time: 'time' } }
      : {}),
    ...(schedule.end !== undefined
      ? { end: { key: 'event.end', label: 'Ends', value: schedule.end, time: 'dateTime' } }
      : {}),
    ...(event.venueAddress
      ? { address: { key: 'event.address', label: 'Address', value: event.venueAddress } }
      : {}),
  }),
};
