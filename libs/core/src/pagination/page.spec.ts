import { InvalidInputError } from '../errors/domain-errors';
import { newId } from '../ids/ids';
import { decodeCursor, encodeCursor } from './page';

describe('cursors', () => {
  it('round-trips an id and is opaque (no raw id in it)', () => {
    const id = newId();
    const cursor = encodeCursor(id);
    expect(cursor).not.toContain(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(id);
  });

  it.each([
    ['garbage', '%%%'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['wrong shape', Buffer.from('{"offset":20}').toString('base64url')],
    ['id with forbidden characters', Buffer.from('{"after":"a\' OR 1=1"}').toString('base64url')],
    ['null', Buffer.from('null').toString('base64url')],
  ])('rejects %s', (_label, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(InvalidInputError);
  });
});
