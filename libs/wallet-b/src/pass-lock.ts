import { Pass } from '@app/passes';
import type { EntityManager } from 'typeorm';

/**
 * Locks the pass row for the rest of the transaction (a no-op UPDATE takes the row lock on
 * MySQL; SQLite runs one transaction at a time) and reads it. Every WalletB write that moves
 * the pass's counters or counts its messages starts here, so concurrent ones take turns.
 */
export async function lockPass(manager: EntityManager, passId: string): Promise<Pass | null> {
  await manager
    .createQueryBuilder()
    .update(Pass)
    .set({ googleIssuedCount: () => 'google_issued_count' })
    .where('id = :passId', { passId })
    .execute();
  return manager.findOneBy(Pass, { id: passId });
}

/** issued = objects that were ever saved, active = saved and not deleted; totals follow. */
export async function moveGoogleCounters(
  manager: EntityManager,
  passId: string,
  change: { issued: boolean; active: 1 | -1 },
): Promise<void> {
  const sign = change.active > 0 ? '+' : '-';
  await manager
    .createQueryBuilder()
    .update(Pass)
    .set({
      googleActiveCount: () => `google_active_count ${sign} 1`,
      totalActiveCount: () => `total_active_count ${sign} 1`,
      ...(change.issued
        ? {
            googleIssuedCount: () => 'google_issued_count + 1',
            totalIssuedCount: () => 'total_issued_count + 1',
          }
        : {}),
    })
    .where('id = :passId', { passId })
    .execute();
}
