import { ValidateBy, type ValidationOptions } from 'class-validator';

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` naming a day that exists: `2026-02-28` yes, `2026-02-30` and `2026-13-01` no. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = CALENDAR_DATE.exec(value);
  if (match === null) return false;
  const [year, month, day] = match.slice(1).map(Number);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  // 30 February rolls over into March; a real day comes back unchanged. (setUTCFullYear, unlike
  // Date.UTC, does not read years 0001–0099 as 1901–1999.)
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export const CALENDAR_DATE_MESSAGE = 'must be a real date written as YYYY-MM-DD';

/** Validates a `YYYY-MM-DD` string naming a day that exists. */
export const IsCalendarDate = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    { name: 'isCalendarDate', validator: { validate: isCalendarDate } },
    { message: CALENDAR_DATE_MESSAGE, ...options },
  );
