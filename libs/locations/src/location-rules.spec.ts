import { ConflictError } from '@app/core';
import {
  assertRoomForEnabledLocation,
  MAX_ENABLED_LOCATIONS_PER_PASS,
  passesToLock,
} from './location-rules';

describe('location rules', () => {
  describe('assertRoomForEnabledLocation', () => {
    it('lets a pass have up to 10 enabled locations', () => {
      expect(MAX_ENABLED_LOCATIONS_PER_PASS).toBe(10);
      for (let others = 0; others < 10; others++) {
        expect(() => assertRoomForEnabledLocation('pass-1', others)).not.toThrow();
      }
    });

    it('refuses the 11th with a 409 naming the pass and the limit', () => {
      let thrown: unknown;
      try {
        assertRoomForEnabledLocation('pass-1', 10);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConflictError);
      const conflict = thrown as ConflictError;
      expect(conflict.status).toBe(409);
      expect(conflict.context).toEqual({ 'walletPass.id': 'pass-1', limit: 10 });
      expect(() => assertRoomForEnabledLocation('pass-1', 12)).toThrow(ConflictError);
    });
  });

  describe('passesToLock', () => {
    it('locks each pass once, in the same order whichever way a location moves', () => {
      expect(passesToLock('b', 'a')).toEqual(['a', 'b']);
      expect(passesToLock('a', 'b')).toEqual(['a', 'b']);
      expect(passesToLock('a', 'a')).toEqual(['a']);
    });

    it('skips the missing side of a location without a pass', () => {
      expect(passesToLock(null, 'a')).toEqual(['a']);
      expect(passesToLock('a', undefined)).toEqual(['a']);
      expect(passesToLock(null, null)).toEqual([]);
    });
  });
});
