import type { EventDto } from './kind-payloads';
import type { KindSchedule, KindUnit, UpcomingEventFacts } from './kind-unit';

/**
 * An event ticket: the event's name, date and venue, and when known its doors, end and address;
 * for a festival or a season ticket, its upcoming events. Its times come from the schedule, so a
 * holder's own day is its date and the pass's doors, end and events, times of other days, are
 * not shown.
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
    ...(event.upcoming !== undefined && event.upcoming.length > 0
      ? {
          events: event.upcoming.map((upcoming) => ({
            id: upcoming.identifier,
            start: upcoming.startTime,
            ...(upcoming.endTime !== undefined ? { end: upcoming.endTime } : {}),
          })),
        }
      : {}),
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
    ...(schedule.events !== undefined ? { upcoming: upcomingFacts(event, schedule) } : {}),
  }),
};

/** Each scheduled event with its name and venue from the block, matched by identifier. */
function upcomingFacts(event: EventDto, schedule: KindSchedule): UpcomingEventFacts[] {
  const byId = new Map((event.upcoming ?? []).map((upcoming) => [upcoming.identifier, upcoming]));
  return (schedule.events ?? []).flatMap((scheduled) => {
    const upcoming = byId.get(scheduled.id);
    if (upcoming === undefined) return [];
    const venue = upcoming.venueName ?? event.venueName;
    return [
      {
        identifier: scheduled.id,
        name: upcoming.name,
        date: { key: 'event.start', label: 'Date', value: scheduled.start, time: 'dateTime' },
        ...(scheduled.end !== undefined
          ? { end: { key: 'event.end', label: 'Ends', value: scheduled.end, time: 'dateTime' } }
          : {}),
        venue: { key: 'event.venue', label: 'Venue', value: venue },
        atTicketVenue: upcoming.venueName === undefined,
      },
    ];
  });
}
