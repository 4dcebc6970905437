import { QueryFailedError } from 'typeorm';

const UNIQUE_VIOLATION_CODES = new Set([
  'ER_DUP_ENTRY',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);

/** Driver error code of a failed query or connection (mysql2 and better-sqlite3 both set `code`). */
export function driverErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = candidate.driverError?.code ?? candidate.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when an insert or update hit a unique index: the database's answer to a race. */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverErrorCode(error);
  return (
    error instanceof QueryFailedError && code !== undefined && UNIQUE_VIOLATION_CODES.has(code)
  );
}
