/** The one table of error codes: every error response carries one of these. */
export const ERROR_STATUS = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function errorCodeForStatus(status: number): ErrorCode {
  const match = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
    (code) => ERROR_STATUS[code] === status,
  );
  if (match) return match;
  if (status >= 500) return 'INTERNAL_ERROR';
  return 'INVALID_INPUT';
}
