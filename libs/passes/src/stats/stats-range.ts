import { InvalidInputError } from '@app/core';

/** Days one answer may cover: a leap year's. */
export const MAX_STATS_DAYS = 366;
/** Days covered when `from` is not given: the last 30, ending with `to`. */
export const DEFAULT_STATS_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const NOT_A_DAY = 'must be a date YYYY-MM-DD';

/** A range of UTC days, both ends included, as `YYYY-MM-DD`. */
export interface StatsRange {
  from: string;
  to: string;
}

/** The UTC day of an instant, `YYYY-MM-DD`: the day an event is counted on. */
export function utcDay(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/** Midnight UTC of a `YYYY-MM-DD` that names a real calendar day, else null (2025-02-30). */
function dayStart(value: string): number | null {
  if (!DAY_PATTERN.test(value)) return null;
  const start = Date.parse(`${value}T00:00:00.000Z`);
  // Date.parse rolls 2025-02-30 over to March 2nd; reading it back tells.
  return Number.isNaN(start) || utcDay(new Date(start)) !== value ? null : start;
}

/**
 * The days `GET /wallet-pass/{id}/stats` answers for: `to` defaults to today (UTC), `from` to
 * 29 days before `to`. A malformed or impossible date, `from` after `to`, or more than
 * {@link MAX_STATS_DAYS} days is an InvalidInputError keyed by the parameter at fault.
 */
export function statsRange(query: { from?: string; to?: string }, now: Date): StatsRange {
  const to = query.to === undefined ? dayStart(utcDay(now)) : dayStart(query.to);
  const from =
    query.from === undefined
      ? to === null
        ? null
        : to - (DEFAULT_STATS_DAYS - 1) * DAY_MS
      : dayStart(query.from);
  const problems: Record<string, string> = {};
  if (query.from !== undefined && from === null) problems.from = NOT_A_DAY;
  if (to === null) problems.to = NOT_A_DAY;
  if (from === null || to === null) throw new InvalidInputError(problems);
  if (from > to) throw new InvalidInputError({ from: 'must not be after to' });
  if ((to - from) / DAY_MS + 1 > MAX_STATS_DAYS) {
    throw new InvalidInputError({ from: `must be at most ${MAX_STATS_DAYS - 1} days before to` });
  }
  return { from: utcDay(new Date(from)), to: utcDay(new Date(to)) };
}

/** Every day of the range, oldest first. */
export function daysOf(range: StatsRange): string[] {
  const days: string[] = [];
  const end = Date.parse(`${range.to}T00:00:00.000Z`);
  for (let day = Date.parse(`${range.from}T00:00:00.000Z`); day <= end; day += DAY_MS) {
    days.push(utcDay(new Date(day)));
  }
  return days;
}
