import { LeasedWorker, WorkerScheduler } from '@app/core';
import { Pass, HolderChanges } from '@app/passes';
import { Injectable } from '@nestjs/common';
import {
  DataSource,
  IsNull,
  LessThan,
  LessThanOrEqual,
  MoreThan,
  MoreThanOrEqual,
  Not,
} from 'typeorm';
import { GoogleWalletClient } from '../google/google-wallet-client';
import { buildObjectContent, objectContentHash } from '../google/pass-resources';
import { WalletBObject } from '../objects/wallet-b-object.entity';
import { WalletBService } from '../wallet-b.service';
import { SyncJob } from './sync-job.entity';

const JOBS_PER_TICK = 10;
/** Holders' objects patched per checkpoint. */
const OBJECT_BATCH = 100;
/** A failed sync is tried again after 5 s, 10 s, 20 s, ... up to an hour, this many times. */
const MAX_ATTEMPTS = 20;
const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 60 * 60 * 1000;
/** A job of a pass whose previous job is still being worked on waits this long. */
const BUSY_PASS_DELAY_MS = 2_000;

/**
 * Brings passes' Google classes up to date, then patches what holders' objects show (title,
 * logo, colour, barcode, state) when that changed. Any number of workers may run: jobs are
 * claimed by compare-and-set under a lease, one pass is synced by one worker at a time, and a
 * job Google failed is retried with backoff (the object fan-out resumes after its checkpoint).
 * Runs only where WalletB is configured; jobs queued meanwhile wait for it.
 */
@Injectable()
export class ClassSyncWorker extends LeasedWorker<SyncJob> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly walletB: WalletBService,
    private readonly client: GoogleWalletClient,
    hooks: HolderChanges,
    scheduler: WorkerScheduler,
  ) {
    super('WalletBSync', scheduler, SyncJob, { state: 'processing' });
    hooks.onCommitted(() => this.handle.kick());
  }

  runsHere(): boolean {
    return this.walletB.configured;
  }

  /** Claims and works on due jobs; returns how many it took. */
  tick(): Promise<number> {
    return this.handle.drain(
      () => this.claimNext(),
      (job) => this.process(job),
      JOBS_PER_TICK,
    );
  }

  private jobs() {
    return this.dataSource.getRepository(SyncJob);
  }

  private async claimNext(): Promise<SyncJob | null> {
    const now = new Date();
    const job = await this.lease.claimNext(
      [
        { state: 'pending', nextAttemptTime: LessThanOrEqual(now) },
        { state: 'processing', leaseUntil: LessThan(now) },
      ],
      () => ({ state: 'processing' }),
      JOBS_PER_TICK,
    );
    if (job === null || !(await this.passBusyElsewhere(job, now))) return job;
    await this.lease.release(job.id, {
      state: 'pending',
      attempts: job.attempts - 1,
      nextAttemptTime: new Date(Date.now() + BUSY_PASS_DELAY_MS),
    });
    return null;
  }

  /** Another worker holds a live lease on a job of the same pass: two syncs must not race. */
  private async passBusyElsewhere(job: SyncJob, now: Date): Promise<boolean> {
    const other = await this.jobs().countBy({
      passId: job.passId,
      state: 'processing',
      id: Not(job.id),
      leaseUntil: MoreThanOrEqual(now),
    });
    return other > 0;
  }

  private async process(job: SyncJob): Promise<void> {
    const pass = await this.dataSource.getRepository(Pass).findOneBy({ id: job.passId });
    if (pass === null || pass.status !== 'Published') {
      await this.finish(job, { objectHash: job.objectHash });
      return;
    }
    // Jobs of this pass queued before now are covered: this one reads the pass as it is now.
    await this.jobs().update(
      { passId: job.passId, state: 'pending', id: Not(job.id) },
      { state: 'superseded', finishedTime: new Date(), updatedTime: new Date() },
    );

    const synced = await this.walletB.syncClass(pass);
    if (!synced.ok) {
      await this.retryLater(job, `class: ${synced.reason}`);
      return;
    }

    const objectHash = objectContentHash(pass);
    if (job.lastObjectId === null && (await this.objectsShow(pass.id, objectHash))) {
      await this.finish(job, { objectHash });
      return;
    }
    const content = buildObjectContent(pass, await this.walletB.objectImages(pass));
    let cursor = job.lastObjectId;
    for (;;) {
      const batch = await this.dataSource.getRepository(WalletBObject).find({
        where: {
          passId: pass.id,
          deletedTime: IsNull(),
          ...(cursor !== null ? { id: MoreThan(cursor) } : {}),
        },
        order: { id: 'ASC' },
        take: OBJECT_BATCH,
      });
      for (const object of batch) {
        const patched = await this.client.patchObject(object.objectId, content);
        // An object Google does not have (never saved through the link) needs nothing.
        if (!patched.ok && patched.kind !== 'not-found') {
          await this.retryLater(job, `object ${object.objectId}: ${patched.reason}`, cursor);
          return;
        }
        cursor = object.id;
      }
      if (batch.length < OBJECT_BATCH) break;
      if (!(await this.checkpoint(job, cursor))) return;
    }
    await this.finish(job, { objectHash, lastObjectId: cursor });
    this.logger.log({ jobId: job.id, passId: pass.id }, 'WalletB class synced');
  }

  /** True when the last finished sync of the pass left the objects showing this content. */
  private async objectsShow(passId: string, objectHash: string): Promise<boolean> {
    const last = await this.jobs().findOne({
      where: { passId, state: 'done', objectHash: Not(IsNull()) },
      order: { finishedTime: 'DESC', id: 'DESC' },
    });
    return last?.objectHash === objectHash;
  }

  /** Saves the object cursor and extends the lease, while this worker still holds the job. */
  private async checkpoint(job: SyncJob, lastObjectId: string | null): Promise<boolean> {
    const held = await this.lease.checkpoint(job.id, { lastObjectId });
    if (!held) this.logger.warn({ jobId: job.id }, 'Lost the lease of a WalletB sync job');
    return held;
  }

  private async finish(
    job: SyncJob,
    fields: { objectHash: string | null; lastObjectId?: string | null },
  ): Promise<void> {
    await this.lease.finish(job.id, {
      ...fields,
      state: 'done',
      lastError: null,
      finishedTime: new Date(),
    });
  }

  /** Back to pending after a delay (from the object cursor), or failed after MAX_ATTEMPTS. */
  private async retryLater(
    job: SyncJob,
    reason: string,
    lastObjectId: string | null = job.lastObjectId,
  ): Promise<void> {
    const now = new Date();
    const lastError = reason.slice(0, 1000);
    const givingUp = job.attempts >= MAX_ATTEMPTS;
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (job.attempts - 1));
    // Equal jitter: at least half the ceiling, so retries do not bunch up at zero.
    const delay = Math.floor(ceiling / 2 + Math.random() * (ceiling / 2));
    await this.lease.release(job.id, {
      lastObjectId,
      lastError,
      ...(givingUp
        ? { state: 'failed', finishedTime: now }
        : { state: 'pending', nextAttemptTime: new Date(now.getTime() + delay) }),
    });
    this.logger.warn(
      { jobId: job.id, passId: job.passId, attempts: job.attempts, givingUp },
      `WalletB sync failed: ${lastError}`,
    );
  }
}
