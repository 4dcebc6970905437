import {
  APP_CONFIG,
  checkpointedBatches,
  CheckpointRefused,
  DomainError,
  LeasedWorker,
  WorkerScheduler,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, LessThan, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { AudienceJson, Condition } from '../audience';
import { AudiencesService } from '../audiences.service';
import { Pass, HolderChanges } from '@app/passes';
import { HoldersService } from '@app/holders';
import { bulkEdit, fieldDefaultsOf, showsOnPass } from './bulk-changes';
import {
  ACTIVE_BULK_CHANGE_STATUSES,
  HolderBulkChange,
  type BulkChangeStatus,
} from './holder-bulk-change.entity';

const CHANGES_PER_TICK = 10;

/**
 * Claims of one bulk change: a change whose workers keep dying on it (out of memory, say), so
 * that no attempt fails to give it up, ends after this many rather than being claimed every
 * lease forever. A failing attempt ends it sooner: see `LeasedWorker.attemptJob`.
 */
const MOST_CLAIMS = 10;

/**
 * Works through bulk changes of holders. Any number of workers share them: a
 * change is claimed by compare-and-set under a lease, and each step commits together with the
 * lease's checkpoint, so a killed worker's successor goes on from the last committed step and no
 * holder is changed twice:
 *
 * 1. the target's holders are snapshotted into `audience_member` (a segment's audience as it is
 *    now) in batches of SNAPSHOT_BATCH_SIZE, each checkpointing `snapshotCursor`, the last also
 *    setting `matched` and moving the status to Running;
 * 2. then batches of BULK_CHANGE_BATCH_SIZE holder ids after `cursor`, each one
 *    `HolderChanges.transaction` that changes those holders as a PATCH would
 *    (`HoldersService.editBatch`: rows, audiences' rows, `holder.updated` events) and
 *    checkpoints `{cursor, updated, skipped}`; a refused checkpoint (another worker took the
 *    change over) throws `CheckpointRefused`, so its batch rolls back, events included;
 * 3. Done once no holder is left, in one transaction with the announcement of the visible
 *    changes to the wallets: `holdersChangedSince(pass, createdTime)`, one WalletA push job and
 *    one WalletB sync job for the whole change. Every holder the change changed has an
 *    `updatedTime` after the change was made, so each device is pushed and each object patched
 *    once. (Announced per batch instead, a wallet job that runs after later batches committed
 *    reaches their holders too, "changed since" having no end: a test of 3,000 holders in
 *    batches of 20 pushed each device six times.) A holder that someone else changed meanwhile
 *    is pushed once more, which only makes its device fetch again.
 *
 * Both loops run on `checkpointedBatches`, under the worker's query deadline. Failed when the
 * pass was deleted meanwhile (its deletion reaches every holder), or the segment before the start.
 */
@Injectable()
export class HolderBulkChangeWorker extends LeasedWorker<HolderBulkChange> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holderChanges: HolderChanges,
    private readonly holders: HoldersService,
    private readonly audiences: AudiencesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    scheduler: WorkerScheduler,
  ) {
    super('HolderBulkChanges', scheduler, HolderBulkChange, {
      status: In(ACTIVE_BULK_CHANGE_STATUSES),
    });
  }

  /** Claims due bulk changes and works them through; returns how many it took. */
  async tick(): Promise<number> {
    const worked = await this.handle.drain(
      () => this.claimNext(),
      (change) =>
        this.attemptJob(
          change,
          (claimed) => this.work(claimed),
          (claimed, reason) => this.giveUp(claimed, reason),
        ),
      CHANGES_PER_TICK,
    );
    if (worked === CHANGES_PER_TICK) this.handle.requestAnother();
    return worked;
  }

  private claimNext(): Promise<HolderBulkChange | null> {
    const active = In(ACTIVE_BULK_CHANGE_STATUSES);
    return this.lease.claimNext(
      [
        { status: active, leaseUntil: IsNull() },
        { status: active, leaseUntil: LessThan(new Date()) },
      ],
      () => ({}),
      CHANGES_PER_TICK,
    );
  }

  private async work(change: HolderBulkChange): Promise<void> {
    try {
      const pass = await this.livePass(change);
      if (pass === null) return;
      if (change.attempts > MOST_CLAIMS) {
        await this.end(change, pass, 'Failed', `Given up after ${MOST_CLAIMS} claims`);
        return;
      }
      if (change.status === 'Pending' && !(await this.start(change, pass))) return;
      let current = pass;
      const applied = await this.inBatches(change, async () => {
        const ids = await this.audiences.snapshotPage(
          this.dataSource.manager,
          change.id,
          change.cursor,
          this.config.worker.bulkChangeBatchSize,
        );
        if (ids.length === 0) return true;
        // The pass as it is now: its default values are what a holder without its own has.
        const live = await this.livePass(change);
        if (live === null) return true;
        current = live;
        Object.assign(change, await this.batch(change, current, ids));
        return false;
      });
      // Failed instead when the pass was deleted meanwhile.
      if (!applied || change.status !== 'Running') return;
      await this.end(change, current, 'Done', null);
      this.logger.log(
        {
          bulkChangeId: change.id,
          matched: change.matched,
          updated: change.updated,
          skipped: change.skipped,
        },
        'Bulk change done',
      );
    } catch (error) {
      if (!(error instanceof CheckpointRefused)) throw error;
      this.leaseLost(change);
    }
  }

  /**
   * Runs `batch` on {@link checkpointedBatches} under the worker's query deadline; true once its
   * last batch committed. A process shutting down releases the change between batches, so that
   * another worker goes on at once, not once the lease has run out.
   */
  private async inBatches(
    change: HolderBulkChange,
    batch: () => Promise<boolean>,
  ): Promise<boolean> {
    const end = await checkpointedBatches(
      { queryMs: this.config.worker.batchQueryMs, stopping: () => this.handle.shuttingDown },
      batch,
    );
    if (end === 'stopped') await this.lease.release(change.id, {});
    if (end === 'lost') this.leaseLost(change);
    return end === 'done';
  }

  private leaseLost(change: HolderBulkChange): void {
    this.logger.warn(
      { bulkChangeId: change.id },
      'Lost the lease of a bulk change; another worker goes on',
    );
  }

  /**
   * Snapshots the target's holders and moves the change to Running: in batches in id order, each
   * in one transaction with its checkpoint (`snapshotCursor`), the last with the move, under the
   * worker's query deadline, so a snapshot of any size is written and a resumed worker goes on
   * after the last batch committed. Chosen holders are written as a notification's are
   * (`AudiencesService.snapshotChosenBatch`), an audience's as it matches now; a segment's
   * audience as the first batch read it is kept in `audience` for the rest. A target that no
   * longer reads (the segment was deleted, the audience names a field the pass lost) fails the
   * change. False when the change was ended or the lease lost, or the process is shutting down.
   */
  private async start(change: HolderBulkChange, pass: Pass): Promise<boolean> {
    const { snapshotBatchSize } = this.config.worker;
    if (change.holderIds !== null) {
      const holderIds = change.holderIds;
      return this.snapshotInBatches(change, async (manager) => {
        const batch = await this.audiences.snapshotChosenBatch(
          manager,
          change.id,
          pass,
          holderIds,
          change.snapshotCursor,
          snapshotBatchSize,
        );
        return {
          done: batch.done,
          progress: { snapshotCursor: batch.last ?? change.snapshotCursor },
        };
      });
    }
    let condition: Condition;
    let audience: AudienceJson;
    // Read before the transaction: on SQLite a read outside it would wait for it to end.
    try {
      ({ condition, audience } = await this.audiences.resolve(
        change.workspaceId,
        pass,
        change.snapshotCursor === null
          ? { audience: change.audience, segmentId: change.segmentId }
          : { audience: change.audience },
      ));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.end(change, pass, 'Failed', targetGone(change, error));
      return false;
    }
    return this.snapshotInBatches(change, async (manager) => {
      const batch = await this.audiences.snapshotBatch(
        manager,
        change.id,
        pass,
        condition,
        change.snapshotCursor,
        snapshotBatchSize,
      );
      return {
        done: batch.done,
        progress: { audience, snapshotCursor: batch.last ?? change.snapshotCursor },
      };
    });
  }

  /**
   * Writes the snapshot batch by batch ({@link inBatches}): each `write` in one transaction with
   * its progress, the last also setting `matched` and moving the change to Running, which commits
   * only while this worker holds the lease.
   */
  private snapshotInBatches(
    change: HolderBulkChange,
    write: (
      manager: EntityManager,
    ) => Promise<{ progress: Partial<HolderBulkChange>; done: boolean }>,
  ): Promise<boolean> {
    return this.inBatches(change, async () => {
      const progress = await this.dataSource.transaction(async (manager) => {
        const written = await write(manager);
        const step: Partial<HolderBulkChange> = written.done
          ? {
              ...written.progress,
              status: 'Running',
              matched: await this.audiences.snapshotSize(manager, change.id),
            }
          : written.progress;
        // A simple-json column: TypeORM's deep-partial type cannot see into its object.
        const checkpoint = step as QueryDeepPartialEntity<HolderBulkChange>;
        if (!(await this.lease.checkpoint(change.id, checkpoint, manager))) {
          throw new CheckpointRefused();
        }
        return step;
      });
      Object.assign(change, progress);
      return progress.status === 'Running';
    });
  }

  /**
   * One batch: its holders changed (their rows, audiences' rows and events) and the checkpoint,
   * in one transaction. Returns the progress written.
   */
  private async batch(
    change: HolderBulkChange,
    pass: Pass,
    ids: string[],
  ): Promise<Pick<HolderBulkChange, 'cursor' | 'updated' | 'skipped'>> {
    const fieldDefaults = fieldDefaultsOf(pass);
    return this.holderChanges.transaction(async (changes) => {
      const counts = await this.holders.editBatch(changes, change.createdBy, pass, ids, (holder) =>
        bulkEdit(change.changes, holder, fieldDefaults),
      );
      const progress = {
        cursor: ids[ids.length - 1],
        updated: change.updated + counts.updated,
        skipped: change.skipped + counts.skipped,
      };
      if (!(await this.lease.checkpoint(change.id, progress, changes.manager))) {
        throw new CheckpointRefused();
      }
      this.logger.debug({ bulkChangeId: change.id, ...progress }, 'Bulk change batch');
      return progress;
    });
  }

  /** Ends a change that cannot be done, announcing what its committed batches changed. */
  private async giveUp(change: HolderBulkChange, reason: string): Promise<void> {
    const pass = await this.dataSource
      .getRepository(Pass)
      .findOneBy({ id: change.passId, workspaceId: change.workspaceId });
    await this.end(change, pass?.deletedTime === null ? pass : null, 'Failed', reason);
  }

  /** The change's pass, or null (the change is then Failed) when it was deleted. */
  private async livePass(change: HolderBulkChange): Promise<Pass | null> {
    const pass = await this.dataSource
      .getRepository(Pass)
      .findOneBy({ id: change.passId, workspaceId: change.workspaceId });
    if (pass !== null && pass.deletedTime === null) return pass;
    await this.end(change, null, 'Failed', 'The pass was deleted before the bulk change finished');
    return null;
  }

  /**
   * Ends the change, announcing the visible changes it made to holders of `pass` (none when the
   * pass is gone) in the same transaction: see the class comment.
   */
  private async end(
    change: HolderBulkChange,
    pass: Pass | null,
    status: BulkChangeStatus,
    failureReason: string | null,
  ): Promise<void> {
    const finishedTime = new Date();
    await this.holderChanges.transaction(async (changes) => {
      if (pass !== null && change.updated > 0 && showsOnPass(change.changes)) {
        changes.holdersChangedSince(pass.id, change.createdTime);
      }
      const ended = { status, failureReason, finishedTime };
      if (!(await this.lease.finish(change.id, ended, changes.manager))) {
        throw new CheckpointRefused();
      }
    });
    Object.assign(change, { status, failureReason, finishedTime });
  }
}

function targetGone(change: HolderBulkChange, error: DomainError): string {
  if (change.segmentId !== null && error.code === 'NOT_FOUND') {
    return 'The segment was deleted before the bulk change started';
  }
  const problems = Object.entries(error.context ?? {}).map(
    ([key, value]) => `${key} ${String(value)}`,
  );
  return `The audience no longer fits the pass: ${problems.join('; ') || error.message}`;
}
