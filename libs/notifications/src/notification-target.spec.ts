import { InvalidInputError } from '@app/core';
import {
  EVERYONE,
  nextTarget,
  recipientsOf,
  snapshotTaken,
  targetsAudience,
  type NotificationTarget,
} from './notification-target';

const AUDIENCE = { tag: 'gold' };
const SEGMENT = '019a2b3c-6666-7f60-8a1b-2c3d4e5f6a7b';
const HOLDERS = ['019a2b3c-5555-7f60-8a1b-2c3d4e5f6a7b'];

const contextOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context;
  }
  throw new Error('expected a 400');
};

describe('nextTarget', () => {
  it('takes the one target a create gives, or everyone', () => {
    expect(nextTarget({})).toEqual(EVERYONE);
    expect(nextTarget({ audience: AUDIENCE })).toEqual({ ...EVERYONE, audience: AUDIENCE });
    expect(nextTarget({ segmentId: SEGMENT, holderIds: null })).toEqual({
      ...EVERYONE,
      segmentId: SEGMENT,
    });
  });

  it('refuses more than one, keyed by each one given (nulls are not given)', () => {
    expect(contextOf(() => nextTarget({ audience: AUDIENCE, segmentId: SEGMENT }))).toEqual({
      audience: 'give only one of holderIds, audience, segmentId',
      segmentId: 'give only one of holderIds, audience, segmentId',
    });
    expect(
      Object.keys(
        contextOf(() =>
          nextTarget({ holderIds: HOLDERS, audience: AUDIENCE, segmentId: SEGMENT }),
        ) ?? {},
      ),
    ).toEqual(['holderIds', 'audience', 'segmentId']);
  });

  it('on update, replaces the whole target with the one given, keeps it when none is', () => {
    const byHolders: NotificationTarget = { ...EVERYONE, holderIds: HOLDERS };
    expect(nextTarget({ segmentId: SEGMENT }, byHolders)).toEqual({
      ...EVERYONE,
      segmentId: SEGMENT,
    });
    expect(nextTarget({}, byHolders)).toEqual(byHolders);
    // A null clears its own field only: clearing another one leaves the target as it was.
    expect(nextTarget({ audience: null }, byHolders)).toEqual(byHolders);
    expect(nextTarget({ holderIds: null }, byHolders)).toEqual(EVERYONE);
    expect(() => nextTarget({ audience: AUDIENCE, holderIds: HOLDERS }, byHolders)).toThrow(
      InvalidInputError,
    );
  });
});

describe('targetsAudience', () => {
  it('is true for an audience or a segment only', () => {
    expect(targetsAudience(EVERYONE)).toBe(false);
    expect(targetsAudience({ ...EVERYONE, holderIds: HOLDERS })).toBe(false);
    expect(targetsAudience({ ...EVERYONE, audience: AUDIENCE })).toBe(true);
    expect(targetsAudience({ ...EVERYONE, segmentId: SEGMENT })).toBe(true);
  });
});

describe('recipientsOf', () => {
  it('is the snapshot for chosen holders, an audience or a segment, else the whole pass', () => {
    const id = '019a2b3c-7777-7f60-8a1b-2c3d4e5f6a7b';
    const snapshot = (size: number | null) => ({ kind: 'snapshot', notificationId: id, size });
    const unsized = { id, audienceSize: null };
    expect(recipientsOf({ ...EVERYONE, ...unsized })).toEqual({ kind: 'pass' });
    expect(recipientsOf({ ...EVERYONE, ...unsized, audience: AUDIENCE })).toEqual(snapshot(null));
    expect(recipientsOf({ ...EVERYONE, ...unsized, segmentId: SEGMENT })).toEqual(snapshot(null));
    expect(recipientsOf({ ...EVERYONE, id, audienceSize: 7, audience: AUDIENCE })).toEqual(
      snapshot(7),
    );
  });

  it("sizes chosen holders' snapshot by their distinct ids", () => {
    const id = '019a2b3c-7777-7f60-8a1b-2c3d4e5f6a7b';
    const holderIds = [...HOLDERS, ...HOLDERS];
    expect(recipientsOf({ ...EVERYONE, id, audienceSize: null, holderIds })).toEqual({
      kind: 'snapshot',
      notificationId: id,
      size: new Set(HOLDERS).size,
    });
  });
});

describe('snapshotTaken', () => {
  const unwritten = { audienceSize: null, snapshotCursor: null };

  it('is true for the whole pass, for an audience once it has a size, for chosen holders once the cursor is the last of them', () => {
    expect(snapshotTaken({ ...EVERYONE, ...unwritten })).toBe(true);
    expect(snapshotTaken({ ...EVERYONE, ...unwritten, segmentId: SEGMENT })).toBe(false);
    expect(
      snapshotTaken({ ...EVERYONE, audience: AUDIENCE, audienceSize: 0, snapshotCursor: null }),
    ).toBe(true);
    const chosen = ['c', 'a', 'b', 'a'];
    const at = (snapshotCursor: string | null) =>
      snapshotTaken({ ...EVERYONE, holderIds: chosen, audienceSize: null, snapshotCursor });
    expect([at(null), at('a'), at('b'), at('c')]).toEqual([false, false, false, true]);
  });
});
