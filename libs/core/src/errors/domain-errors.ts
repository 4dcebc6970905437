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

/** Field-level validation failure: `context` maps each field path to its message. */
export class InvalidInputError extends DomainError {
  constructor(fieldMessages: Record<string, string>) {
    super('INVALID_INPUT', undefined, fieldMessages);
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
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `Request body is larger than ${limitBytes} bytes`, { limitBytes });
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string, context?: ErrorContext) {
    super('UNSUPPORTED_MEDIA_TYPE', message, context);
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
