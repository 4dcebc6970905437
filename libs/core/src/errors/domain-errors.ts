import { ERROR_STATUS, ErrorCode } from './error-codes';

export type ErrorContext = Record<string, unknown>;

/**
 * Services throw these; the global filter turns them into the spec's Error body.
 * They carry no HTTP types so the same services serve the API and the worker.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string | undefined,
    readonly context?: ErrorContext,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? code);
    this.name = new.target.name;
    this.hasMessage = message !== undefined;
  }

  /** Validation errors carry no `errorMessage`, as the spec shows. */
  readonly hasMessage: boolean;

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Field problems a validation error's `context` lists at most. */
export const MAX_CONTEXT_ENTRIES = 50;
/** The `context` key that counts the problems left out: never a field path (no parentheses). */
export const MORE_PROBLEMS_KEY = '(more)';
/** Field paths (which can echo a client's unknown keys) and messages are cut to these lengths. */
const MAX_CONTEXT_KEY_LENGTH = 200;
const MAX_CONTEXT_MESSAGE_LENGTH = 500;

const cut = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length)}…` : text;

/**
 * The first {@link MAX_CONTEXT_ENTRIES} problems, and under {@link MORE_PROBLEMS_KEY} how many
 * more there were: an error answer stays small however many problems a body has.
 */
export function capFieldMessages(fieldMessages: Record<string, string>): ErrorContext {
  // A Map, then own properties: a client's key `__proto__` stays an entry like any other.
  const entries = new Map<string, unknown>();
  let more = 0;
  for (const path of Object.keys(fieldMessages)) {
    if (entries.size < MAX_CONTEXT_ENTRIES) {
      entries.set(
        cut(path, MAX_CONTEXT_KEY_LENGTH),
        cut(String(fieldMessages[path]), MAX_CONTEXT_MESSAGE_LENGTH),
      );
    } else {
      more += 1;
    }
  }
  if (more > 0) entries.set(MORE_PROBLEMS_KEY, more);
  return Object.fromEntries(entries);
}

/**
 * Field-level validation failure: `context` maps each field path to its message, at most
 * {@link MAX_CONTEXT_ENTRIES} of them (see {@link capFieldMessages}).
 */
export class InvalidInputError extends DomainError {
  constructor(fieldMessages: Record<string, string>) {
    super('INVALID_INPUT', undefined, capFieldMessages(fieldMessages));
  }
}

/** A request that is not well-formed as a whole (bad JSON, bad cursor encoding, ...). */
export class MalformedRequestError extends DomainError {
  constructor(message: string, context?: ErrorContext) {
    super('INVALID_INPUT', message, context);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Authentication is required') {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Access denied', context?: ErrorContext) {
    super('FORBIDDEN', message, context);
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, id: string) {
    super('NOT_FOUND', `${what} not found`, { id });
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, context?: ErrorContext) {
    super('CONFLICT', message, context);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number, detail: { message?: string; context?: ErrorContext } = {}) {
    super(
      'PAYLOAD_TOO_LARGE',
      detail.message ?? `Request body is larger than ${limitBytes} bytes`,
      detail.context ?? { limitBytes },
    );
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string, context?: ErrorContext) {
    super('UNSUPPORTED_MEDIA_TYPE', message, context);
  }
}

/** The request's body did not arrive in time; the connection is closed after the answer. */
export class RequestTimeoutError extends DomainError {
  constructor(deadlineMs: number) {
    super('REQUEST_TIMEOUT', `The request did not arrive within ${deadlineMs / 1000} s`, {
      deadlineMs,
    });
  }
}

export class RateLimitedError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super(
      'RATE_LIMITED',
      'Too many requests',
      { retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

export class UnavailableError extends DomainError {
  constructor(message = 'Service temporarily unavailable') {
    super('UNAVAILABLE', message, undefined, { 'Retry-After': '5' });
  }
}
