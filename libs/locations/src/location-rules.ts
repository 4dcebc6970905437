import { ConflictError } from '@app/core';

/** Apple Wallet reads at most this many locations of a pass; more must be refused, not dropped. */
export const MAX_ENABLED_LOCATIONS_PER_PASS = 10;

/**
 * The pass rows a location write locks, without repeats, in ascending id order: two
 * transactions that lock the same two passes (a location moved from A to B while another moves
 * from B to A) take them in the same order and so never wait on each other in a circle.
 */
export function passesToLock(...passIds: (string | null | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const id of passIds) if (typeof id === 'string') ids.add(id);
  return [...ids].sort();
}

/**
 * Refuses one more enabled location for a pass that already has `otherEnabled` enabled
 * locations (not counting the location being written).
 */
export function assertRoomForEnabledLocation(passId: string, otherEnabled: number): void {
  if (otherEnabled >= MAX_ENABLED_LOCATIONS_PER_PASS) {
    throw new ConflictError(
      `A pass can have at most ${MAX_ENABLED_LOCATIONS_PER_PASS} enabled locations (Apple Wallet reads no more)`,
      { 'walletPass.id': passId, limit: MAX_ENABLED_LOCATIONS_PER_PASS },
    );
  }
}
