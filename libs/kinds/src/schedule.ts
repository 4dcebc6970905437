import type {
  EventRelevance,
  EventTimes,
  KindSchedule,
  KindTimes,
  ScheduledEvent,
} from './kind-unit';

/** Wallet drops a relevancy interval longer than a day (PassKit logs "Dropping relevancy interval"). */
const MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * The one rule for when a pass, or a holder's copy of it, happens:
 * - a holder's own day (`holderDate`, its `relevantDate`) replaces the date of a kind that takes
 *   it (an event): the start is that day, and the end and the doors, times of the pass's day,
 *   are left out rather than shown on the wrong day;
 * - the relevant date is the holder's, else the pass's, else the start;
 * - an event that lasts at most a day is relevant from the pass's relevant date (else its doors,
 *   else its start) to its end, so the ticket stays on the lock screen while the event lasts;
 * - the events of a festival or a season ticket (`times.events`) are each relevant on their own,
 *   from start to end when within a day, else at their start; a holder's own day leaves them
 *   out, since that copy is a ticket for its one day.
 */
export function scheduleOf(
  times: KindTimes,
  passRelevantDate: string | undefined,
  holderDate: string | null,
): KindSchedule {
  const ownDay = times.takesHolderDay && times.start !== undefined ? holderDate : null;
  const start = ownDay ?? times.start;
  const end = ownDay === null ? times.end : undefined;
  const doorsOpen = ownDay === null ? times.doorsOpen : undefined;
  const boarding = ownDay === null ? times.boarding : undefined;
  const relevantDate = holderDate ?? passRelevantDate ?? start;
  return {
    ...optional('start', start),
    ...optional('end', end),
    ...optional('doorsOpen', doorsOpen),
    ...optional('boarding', boarding),
    ownDay,
    ...optional('relevantDate', relevantDate),
    ...optional(
      'relevantInterval',
      times.lasts && holderDate === null && start !== undefined && end !== undefined
        ? interval(passRelevantDate ?? doorsOpen ?? start, end)
        : undefined,
    ),
    ...optional('durationSeconds', start !== undefined ? seconds(start, end) : undefined),
    ...optional(
      'events',
      ownDay === null && times.events !== undefined && times.events.length > 0
        ? times.events.map(scheduledEvent)
        : undefined,
    ),
  };
}

function scheduledEvent(event: EventTimes): ScheduledEvent {
  const relevance: EventRelevance =
    (event.end !== undefined ? interval(event.start, event.end) : undefined) ??
    ({ date: event.start } as const);
  return { ...event, relevance };
}

/**
 * The event of a festival or a season ticket that is next at `now`: the earliest to start of
 * those whose end (or start, without an end) is not yet past; when all are past, the last one.
 * Undefined for a schedule without events.
 */
export function nextEvent(schedule: KindSchedule, now: Date): ScheduledEvent | undefined {
  const events = schedule.events ?? [];
  const ends = (event: ScheduledEvent) => Date.parse(event.end ?? event.start);
  const starts = (event: ScheduledEvent) => Date.parse(event.start);
  const coming = events.filter((event) => ends(event) >= now.getTime());
  const pick = (list: ScheduledEvent[], better: (a: number, b: number) => boolean) =>
    list.reduce<ScheduledEvent | undefined>(
      (best, event) => (best === undefined || better(starts(event), starts(best)) ? event : best),
      undefined,
    );
  return coming.length > 0 ? pick(coming, (a, b) => a < b) : pick(events, (a, b) => a >= b);
}

function interval(startDate: string, endDate: string): KindSchedule['relevantInterval'] {
  const length = Date.parse(endDate) - Date.parse(startDate);
  return length > 0 && length <= MAX_INTERVAL_MS ? { startDate, endDate } : undefined;
}

/** Whole seconds from `start` to `end`, when both are given and `end` is later. */
function seconds(start: string, end: string | undefined): number | undefined {
  if (end === undefined) return undefined;
  const ms = Date.parse(end) - Date.parse(start);
  return ms > 0 ? Math.round(ms / 1000) : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
