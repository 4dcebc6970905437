import {
  ISO_DATE_TIME_MESSAGE as ISO_MESSAGE,
  isIsoDateTime,
} from '@app/core/validation/iso-date-time';
import type { EventDto } from './kind-payloads';
import type { BlockProblem, KindSchedule, KindUnit, UpcomingEventFacts } from './kind-unit';

/** At most this many upcoming events on a ticket. */
export const MAX_UPCOMING_EVENTS = 20;

/**
 * An event ticket: the event's name, date and venue, and when known its doors, end and address;
 * for a festival or a season ticket, its upcoming events. Its times come from the schedule, so a
 * holder's own day is its date and the pass's doors, end and events, times of other days, are
 * not shown. An artwork image makes it iOS 26's poster event ticket, which Wallet shows only with
 * every semantic tag the poster requires (eventName, venueName, venueRegionName, venueRoom) and
 * NFC (Apple's Pass Builder refuses a poster event ticket without `nfc`).
 */
export const EVENT_TICKET: KindUnit<'eventTicket'> = {
  block: 'event',
  face: { headerFields: 3, primaryFields: 1, secondaryFields: 4, auxiliaryFields: 4 },
  problem: (event) => upcomingProblem(event.upcoming),
  passenger: false,
  poster: {
    name: 'poster event ticket',
    needs: ['venueRegion', 'venueRoom'] satisfies (keyof EventDto)[],
    needsNfc: true,
  },
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

/**
 * A festival's or a season ticket's events: at most 20, identifiers unique (each is WalletA's
 * entry `identifier`), ISO 8601 dates with an end not before the start. The DTO checks each
 * entry's shape; this holds for stored metadata too, so it reads each value as unknown.
 */
function upcomingProblem(upcoming: EventDto['upcoming']): BlockProblem | null {
  if (upcoming === undefined) return null;
  if (upcoming.length > MAX_UPCOMING_EVENTS) {
    return { field: 'upcoming', message: `must have at most ${MAX_UPCOMING_EVENTS} events` };
  }
  const seen = new Set<unknown>();
  for (const [index, event] of upcoming.entries()) {
    const at = `upcoming[${index}]`;
    if (seen.has(event.identifier)) {
      return {
        field: `${at}.identifier`,
        message: 'is used by another upcoming event of the pass',
      };
    }
    seen.add(event.identifier);
    const times: Partial<Record<'startTime' | 'endTime', unknown>> = event;
    for (const key of ['startTime', 'endTime'] as const) {
      if ((key === 'startTime' || times[key] !== undefined) && !isIsoDateTime(times[key])) {
        return { field: `${at}.${key}`, message: ISO_MESSAGE };
      }
    }
    if (event.endTime !== undefined && Date.parse(event.endTime) < Date.parse(event.startTime)) {
      return { field: `${at}.endTime`, message: 'must not be before its startTime' };
    }
  }
  return null;
}
