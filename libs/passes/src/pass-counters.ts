import { sqlDialect } from '@app/core';
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
 * {@link lockPassRow} for a transaction that needs only the pass's version (null: no such
 * pass): one `SELECT … FOR UPDATE` on MySQL; on SQLite the no-op UPDATE, which makes the
 * transaction the writer at once rather than at its first write.
 */
export async function lockPassVersion(
  manager: EntityManager,
  passId: string,
): Promise<number | null> {
  const rowLocks = sqlDialect(manager.connection).rowLocks;
  if (!rowLocks) await manager.query('UPDATE pass SET version = version WHERE id = ?', [passId]);
  const rows = await manager.query<{ version: number | string }[]>(
    `SELECT version FROM pass WHERE id = ?${rowLocks ? ' FOR UPDATE' : ''}`,
    [passId],
  );
  return rows.length === 0 ? null : Number(rows[0].version);
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
  await addHolderCounters(manager, passId, wallet, {
    issued: change.issued ? 1 : 0,
    active: change.active,
  });
}

/** {@link moveHolderCounters} by any amounts at once (a batch of device registrations). */
export async function addHolderCounters(
  manager: EntityManager,
  passId: string,
  wallet: 'apple' | 'google',
  added: { issued: number; active: number },
): Promise<void> {
  if (added.issued === 0 && added.active === 0) return;
  const plus = (column: string, amount: number) => () =>
    `${column} ${amount < 0 ? '-' : '+'} ${Math.abs(Math.trunc(amount))}`;
  await manager
    .createQueryBuilder()
    .update(Pass)
    .set({
      [`${wallet}ActiveCount`]: plus(`${wallet}_active_count`, added.active),
      totalActiveCount: plus('total_active_count', added.active),
      [`${wallet}IssuedCount`]: plus(`${wallet}_issued_count`, added.issued),
      totalIssuedCount: plus('total_issued_count', added.issued),
    })
    .where('id = :passId', { passId })
    .execute();
}
