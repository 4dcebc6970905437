/** An ISO 8601 date-time with its offset, as pass.json's W3C dates and Google's DateTime take. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export const ISO_DATE_TIME_MESSAGE =
  'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00)';

export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && !isNaN(Date.parse(value));
}
