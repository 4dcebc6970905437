import { InvalidInputError } from '@app/core';
import { parseOffsetCursor } from './link-stats.service';

describe('parseOffsetCursor', () => {
  it('starts at 0 without a cursor', () => {
    expect(parseOffsetCursor(undefined)).toBe(0);
  });

  it.each([
    ['0', 0],
    ['20', 20],
    ['007', 7],
    ['999999999999999', 999_999_999_999_999],
  ])('reads %s as offset %d', (cursor, offset) => {
    expect(parseOffsetCursor(cursor)).toBe(offset);
  });

  it.each(['', '-1', '1.5', '1e3', ' 1', 'abc', '0x10', '1000000000000000'])(
    'refuses %p with context.cursor',
    (cursor) => {
      let caught: unknown;
      try {
        parseOffsetCursor(cursor);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidInputError);
      expect((caught as InvalidInputError).context).toEqual({ cursor: expect.any(String) });
    },
  );
});
