import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { TypeORMError } from 'typeorm';
import { driverErrorCode, isUniqueViolation } from '../database/db-errors';
import { ACQUIRE_TIMEOUT_CODE } from '../database/mysql-deadlines';
import type { AppRequest } from './request-context';
import {
  DomainError,
  MalformedRequestError,
  PayloadTooLargeError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../errors/domain-errors';
import { ErrorBody } from '../errors/error-body';
import { ERROR_STATUS, errorCodeForStatus } from '../errors/error-codes';

/** Driver error codes that mean "the database cannot be reached right now", not "bad query". */
const DATABASE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  ACQUIRE_TIMEOUT_CODE,
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

/**
 * better-sqlite3 reports extended result codes: another process's write lock or commit can
 * also surface as SQLITE_BUSY_SNAPSHOT (a read-then-write transaction whose snapshot a foreign
 * commit made stale), SQLITE_BUSY_RECOVERY, SQLITE_BUSY_TIMEOUT or SQLITE_LOCKED_*.
 */
const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)_[A-Z]+$/;

/** Messages of a connection that is closed or was never opened (pool closed, file closed). */
const CONNECTION_GONE =
  /not established|pool is closed|connection is not open|Connection terminated|cannot open|closed state/i;

/** Errors raised by body-parser before a request reaches Nest's pipeline. */
interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/**
 * Turns whatever was thrown into a {@link DomainError}. Anything not recognised becomes
 * `undefined`, which the filter answers with a 500 that shows no stack and no SQL.
 */
export function toDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;

  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.parse.failed':
        return new MalformedRequestError('Request body is not valid JSON');
      case 'entity.verify.failed':
        return new MalformedRequestError(
          error instanceof Error ? error.message : 'Request body refused',
        );
      case 'entity.too.large':
        return new PayloadTooLargeError(error.limit ?? 0);
      case 'charset.unsupported':
      case 'encoding.unsupported':
        return new UnsupportedMediaTypeError('Unsupported request body encoding');
    }
  }

  if (error instanceof HttpException) {
    const status = error.getStatus();
    const body = error.getResponse();
    const message =
      typeof body === 'object' && body !== null && 'message' in body
        ? String(body.message)
        : error.message;
    return new DomainError(errorCodeForStatus(status), message);
  }

  const code = driverErrorCode(error);
  if (code !== undefined && (DATABASE_UNAVAILABLE_CODES.has(code) || SQLITE_BUSY.test(code))) {
    return new UnavailableError();
  }
  if (isUniqueViolation(error)) {
    return new DomainError('CONFLICT', 'A record with the same unique value already exists');
  }
  if (error instanceof TypeORMError && CONNECTION_GONE.test(error.message)) {
    return new UnavailableError();
  }
  return undefined;
}

export function errorBody(requestId: string, error: DomainError): ErrorBody {
  const body: ErrorBody = {
    txId: requestId,
    timestamp: new Date().toISOString(),
    errorCode: error.code,
  };
  if (error.hasMessage) body.errorMessage = error.message;
  if (error.context !== undefined) body.context = error.context;
  return body;
}

/** The one place that writes error responses: every failure gets the spec's Error body. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<AppRequest>();
    const response = http.getResponse<Response>();

    let error = toDomainError(exception);
    if (error === undefined) {
      this.logger.error(
        { err: exception, path: request.originalUrl, method: request.method },
        'Unhandled error',
      );
      error = new DomainError('INTERNAL_ERROR', 'Internal server error');
    } else if (error.code === 'UNAVAILABLE') {
      this.logger.warn({ err: exception, path: request.originalUrl }, 'Dependency unavailable');
    }

    if (response.headersSent) return;
    for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    response
      .status(ERROR_STATUS[error.code])
      .json(errorBody(request.requestId ?? 'unknown', error));
  }
}
