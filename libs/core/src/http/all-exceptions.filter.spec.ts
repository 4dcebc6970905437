import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/domain-errors';
import { errorBody, toDomainError } from './all-exceptions.filter';

function driverError(code: string, message = code): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code }));
}

describe('toDomainError', () => {
  it('keeps domain errors as they are', () => {
    const error = new ConflictError('taken');
    expect(toDomainError(error)).toBe(error);
  });

  it.each([
    [{ type: 'entity.parse.failed', status: 400 }, 'INVALID_INPUT'],
    [{ type: 'entity.too.large', status: 413, limit: 100 }, 'PAYLOAD_TOO_LARGE'],
    [{ type: 'charset.unsupported', status: 415 }, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('maps the body parser error %p to %s', (error, code) => {
    expect(toDomainError(error)?.code).toBe(code);
  });

  it('maps Nest HTTP exceptions by status', () => {
    expect(toDomainError(new NotFoundException('Cannot GET /x'))?.code).toBe('NOT_FOUND');
    expect(toDomainError(new PayloadTooLargeException())?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it.each([
    'ECONNREFUSED',
    'PROTOCOL_CONNECTION_LOST',
    'ER_LOCK_DEADLOCK',
    'SQLITE_BUSY',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_BUSY_TIMEOUT',
    'SQLITE_LOCKED_SHAREDCACHE',
  ])('maps the unreachable-database code %s to 503', (code) => {
    expect(toDomainError(driverError(code))?.code).toBe('UNAVAILABLE');
  });

  it('maps an unhandled unique violation to 409', () => {
    expect(toDomainError(driverError('ER_DUP_ENTRY'))?.code).toBe('CONFLICT');
    expect(toDomainError(driverError('SQLITE_CONSTRAINT_UNIQUE'))?.code).toBe('CONFLICT');
  });

  it('leaves programming errors and bad SQL unmapped (they become a bare 500)', () => {
    expect(toDomainError(new TypeError('x is undefined'))).toBeUndefined();
    expect(
      toDomainError(driverError('ER_PARSE_ERROR', 'You have an error in your SQL syntax')),
    ).toBeUndefined();
  });
});

describe('errorBody', () => {
  it('omits errorMessage on validation errors and carries context', () => {
    const body = errorBody('tx-1', new InvalidInputError({ name: 'must not be null' }));
    expect(body).toEqual({
      txId: 'tx-1',
      timestamp: expect.any(String),
      errorCode: 'INVALID_INPUT',
      context: { name: 'must not be null' },
    });
  });

  it('puts the id of a missing record in context', () => {
    expect(errorBody('tx-2', new NotFoundError('Pass', 'abc'))).toMatchObject({
      errorCode: 'NOT_FOUND',
      errorMessage: 'Pass not found',
      context: { id: 'abc' },
    });
  });
});
