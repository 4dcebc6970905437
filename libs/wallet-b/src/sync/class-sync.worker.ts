import { LEASE_MARGIN_MS, LeasedWorker, LeaseTime, WorkerScheduler } from '@app/core';
import { Holder, HolderChanges, Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import {
  DataSource,
  In,
  IsNull,
  LessThan,
  LessThanOrEqual,
  MoreThan,
  MoreThanOrEqual,
  Not,
} from 'typeorm';
import { WalletBClassesService } from '../classes/wallet-b-classes.service';
import { GoogleWalletClient } from '../google/google-wallet-client';
import {
  buildHolderObjectContent,
  buildObjectContent,
  holderObjectId,
  objectContentHash,
} from '../google/pass-resources';
import type { WalletObjectContent } from '../google/wallet-objects.types';
import { WalletBObject } from '../objects/wallet-b-object.entity';
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
 * Brings passes' Google classes up to date, then patches what holders' objects show (state,
 * barcode, images, validity, the type's own details) when that changed, in the collection of
 * the pass's class type. Any number of workers may run: jobs are
 * claimed by compare-and-set under a lease, one pass is synced by one worker at a time, and a
 * job Google failed is retried with backoff (the object fan-out resumes after its checkpoint).
 * Runs only where WalletB is configured; jobs queued meanwhile wait for it.
 */
@Injectable()
export class ClassSyncWorker extends LeasedWorker<SyncJob> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly classes: WalletBClassesService,
    private readonly client: GoogleWalletClient,
    hooks: HolderChanges,
    scheduler: WorkerScheduler,
  ) {
    super('WalletBSync', scheduler, SyncJob, { state: 'processing' });
    hooks.onCommitted(() => this.handle.kick());
  }

  runsHere(): boolean {
    return this.classes.configured;
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
    if (job.holderId !== null || job.holdersSince !== null) {
      await this.processHolders(job, pass);
      return;
    }
    // Pass-wide jobs of this pass queued before now are covered: this one reads the pass as it
    // is now. Holders' jobs are not: this one leaves the objects alone when what the pass shows
    // did not change, and a holder's values may have.
    await this.jobs().update(
      {
        passId: job.passId,
        state: 'pending',
        id: Not(job.id),
        holderId: IsNull(),
        holdersSince: IsNull(),
      },
      { state: 'superseded', finishedTime: new Date(), updatedTime: new Date() },
    );

    // Every call to Google starts with the lease outlasting it (the class sync: two calls), so
    // a Google that stops answering fails the attempt before another worker may claim the job.
    const lease = new LeaseTime(this.leaseMs, job.leaseUntil);
    const budget = this.client.callBudgetMs;
    let cursor = job.lastObjectId;
    const keep = (calls: number) =>
      lease.ensure(calls * budget + LEASE_MARGIN_MS, () => this.checkpoint(job, cursor));
    if (!(await keep(2))) return;
    const synced = await this.classes.syncClass(pass);
    if (!synced.ok) {
      await this.retryLater(job, `class: ${synced.reason}`);
      return;
    }

    const type = await this.classes.classTypeOf(pass);
    const objectHash = objectContentHash(pass, type);
    if (job.lastObjectId === null && (await this.objectsShow(pass.id, objectHash))) {
      await this.finish(job, { objectHash });
      return;
    }
    const images = await this.classes.objectImages(pass);
    const content = buildObjectContent(pass, type, images);
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
      // Holders' own objects keep their barcode and values: the pass's content would overwrite.
      const holders = await this.holdersOf(batch);
      for (const object of batch) {
        const holder = object.holderId !== null ? holders.get(object.holderId) : undefined;
        if (!(await keep(1))) return;
        const patched = await this.client.patchObject(
          type,
          object.objectId,
          holder !== undefined ? buildHolderObjectContent(pass, type, holder, images) : content,
        );
        // An object Google does not have (never saved through the link) needs nothing.
        if (!patched.ok && patched.kind !== 'not-found') {
          await this.retryLater(job, `object ${object.objectId}: ${patched.reason}`, cursor);
          return;
        }
        cursor = object.id;
      }
      if (batch.length < OBJECT_BATCH) break;
      if (!(await lease.renew(() => this.checkpoint(job, cursor)))) return;
    }
    await this.finish(job, { objectHash, lastObjectId: cursor });
    this.logger.log({ jobId: job.id, passId: pass.id }, 'WalletB class synced');
  }

  private async holdersOf(objects: WalletBObject[]): Promise<Map<string, Holder>> {
    const ids = objects.flatMap((object) => (object.holderId !== null ? [object.holderId] : []));
    if (ids.length === 0) return new Map();
    const holders = await this.dataSource.getRepository(Holder).findBy({ id: In(ids) });
    return new Map(holders.map((holder) => [holder.id, holder]));
  }

  /**
   * A holders' job: patches one holder's object (by its id, whether or not we saw it saved: an
   * object Google does not have answers not-found, which needs nothing), or the saved objects
   * of holders changed since the job's time (an import), in batches with a checkpoint. The
   * class and other objects are left alone.
   */
  private async processHolders(job: SyncJob, pass: Pass): Promise<void> {
    const [type, images] = await Promise.all([
      this.classes.classTypeOf(pass),
      this.classes.objectImages(pass),
    ]);
    let cursor = job.lastObjectId;
    const lease = new LeaseTime(this.leaseMs, job.leaseUntil);
    const patch = async (objectId: string, content: WalletObjectContent): Promise<boolean> => {
      const needMs = this.client.callBudgetMs + LEASE_MARGIN_MS;
      if (!(await lease.ensure(needMs, () => this.checkpoint(job, cursor)))) return false;
      const patched = await this.client.patchObject(type, objectId, content);
      if (patched.ok || patched.kind === 'not-found') return true;
      await this.retryLater(job, `object ${objectId}: ${patched.reason}`, cursor);
      return false;
    };

    if (job.holderId !== null) {
      const holder = await this.dataSource
        .getRepository(Holder)
        .findOneBy({ id: job.holderId, passId: pass.id });
      if (holder !== null) {
        const objectId = holderObjectId(this.classes.issuerId, holder);
        if (!(await patch(objectId, buildHolderObjectContent(pass, type, holder, images)))) return;
      }
      await this.finish(job, { objectHash: null });
      return;
    }

    const since = job.holdersSince!;
    for (;;) {
      const query = this.dataSource
        .getRepository(WalletBObject)
        .createQueryBuilder('o')
        .innerJoin(Holder, 'h', 'h.id = o.holder_id')
        .where('o.pass_id = :passId AND o.deleted_time IS NULL', { passId: pass.id })
        .andWhere('h.updated_time >= :since', { since: this.dateValue(since) })
        .orderBy('o.id', 'ASC')
        .limit(OBJECT_BATCH);
      if (cursor !== null) query.andWhere('o.id > :cursor', { cursor });
      const batch = await query.getMany();
      const holders = await this.holdersOf(batch);
      for (const object of batch) {
        const holder = holders.get(object.holderId!);
        if (holder === undefined) continue;
        const content = buildHolderObjectContent(pass, type, holder, images);
        if (!(await patch(object.objectId, content))) return;
        cursor = object.id;
      }
      if (batch.length < OBJECT_BATCH) break;
      if (!(await lease.renew(() => this.checkpoint(job, cursor)))) return;
    }
    await this.finish(job, { objectHash: null, lastObjectId: cursor });
  }

  /** A Date as the driver stores it in a raw condition (SQLite keeps datetime as text). */
  private dateValue(date: Date): unknown {
    const column = this.dataSource.getMetadata(Holder).findColumnWithPropertyName('updatedTime');
    return this.dataSource.driver.preparePersistentValue(date, column!);
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
