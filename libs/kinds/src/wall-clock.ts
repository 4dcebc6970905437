import { ianaTimeZone, wallClockIn } from './time-zones';

/**
 * An ISO 8601 date-time as the wall-clock time at its own offset, or in its place's IANA time
 * zone when it has one: a ticket's door time is the venue's, a departure the airport's, whatever
 * time zone the reader is in. Wallets on a phone convert dates to the device's zone themselves;
 * these are for texts written once for everyone (the holder page, a WalletB text module).
 */
function wallClock(iso: string, timeZone?: string): Date {
  const zone = timeZone === undefined ? null : ianaTimeZone(timeZone);
  if (zone !== null) return new Date(`${wallClockIn(iso, zone)}Z`);
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  const minutes = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]))
    : 0;
  return new Date(Date.parse(iso) + minutes * 60_000);
}

const DATE = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** `Fri 1 May 2026, 19:30`, put together from its parts: ICU's own joining differs by version. */
export function formatDateTime(iso: string, timeZone?: string): string {
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const { type, value } of DATE.formatToParts(wallClock(iso, timeZone))) part[type] = value;
  return `${part.weekday} ${part.day} ${part.month} ${part.year}, ${formatTime(iso, timeZone)}`;
}

/** `19:30`. */
export function formatTime(iso: string, timeZone?: string): string {
  const date = wallClock(iso, timeZone);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/**
 * A fact's value as text: a date-time or a time of day at its place's zone (else its own
 * offset), else as it is.
 */
export function factText(fact: {
  value: string;
  time?: 'dateTime' | 'time';
  timeZone?: string;
}): string {
  if (fact.time === 'dateTime') return formatDateTime(fact.value, fact.timeZone);
  if (fact.time === 'time') return formatTime(fact.value, fact.timeZone);
  return fact.value;
}

/**
 * From `start` to `end` at their own offsets: `Fri 10 July 2026, 18:00–23:30` within one day,
 * `Fri 10 July 2026, 22:00 – Sat 11 July 2026, 02:00` across days, the start alone without an end.
 */
export function formatSpan(start: string, end?: string): string {
  if (end === undefined) return formatDateTime(start);
  const day = (iso: string) => wallClock(iso).toISOString().slice(0, 10);
  return day(start) === day(end)
    ? `${formatDateTime(start)}–${formatTime(end)}`
    : `${formatDateTime(start)} – ${formatDateTime(end)}`;
}
