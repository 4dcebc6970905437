import type { KindSchedule, KindTimes } from './kind-unit';

/** Wallet drops a relevancy interval longer than a day (PassKit logs "Dropping relevancy interval"). */
const MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * The one rule for when a pass, or a holder's copy of it, happens (DESIGN.md §9):
 * - a holder's own day (`holderDate`, its `relevantDate`) replaces the date of a kind that takes
 *   it (an event): the start is that day, and the end and the doors, times of the pass's day,
 *   are left out rather than shown on the wrong day;
 * - the relevant date is the holder's, else the pass's, else the start;
 * - an event that lasts at most a day is relevant from the pass's relevant date (else its doors,
 *   else its start) to its end, so the ticket stays on the lock screen while the event lasts.
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
  };
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
