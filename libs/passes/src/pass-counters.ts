import type { EntityManager } from 'typeorm';
import { Pass } from './entities/pass.entity';

/**
 * Locks the pass row for the rest of the transaction and reads it. A no-op UPDATE takes the
 * row lock on MySQL (SQLite runs one transaction at a time); every write that moves a pass's
 * holder counters starts here, so concurrent ones take turns instead of deadlocking.
 */
export async function lockPassRow(manager: EntityManager, passId: string): Promise<Pass | null> {
  await manager
    .createQueryBuilder()
    .update(Pass)
    .set({ version: () => 'version' })
    .where('id = :passId', { passId })
    .execute();
  return manager.findOneBy(Pass, { id: passId });
}

/**
 * Moves one wallet's holder counters (and the totals) in the caller's transaction:
 * issued = holders who ever added the pass, active = holders who have it now.
 */
export async function moveHolderCounters(
  manager: EntityManager,
  passId: string,
  wallet: 'apple' | 'google',
  change: { issued: boolean; active: 1 | -1 },
): Promise<void> {
  const sign = change.active > 0 ? '+' : '-';
  await manager
    .createQueryBuilder()
    .update(Pass)
    .set({
      [`${wallet}ActiveCount`]: () => `${wallet}_active_count ${sign} 1`,
      totalActiveCount: () => `total_active_count ${sign} 1`,
      ...(change.issued
        ? {
            [`${wallet}IssuedCount`]: () => `${wallet}_issued_count + 1`,
            totalIssuedCount: () => 'total_issued_count + 1',
          }
        : {}),
    })
    .where('id = :passId', { passId })
    .execute();
}
