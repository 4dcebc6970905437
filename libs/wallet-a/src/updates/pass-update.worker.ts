import { EntityRows, LeasedWorker, sqlDialect, WorkerScheduler } from '@app/core';
import { HolderChanges } from '@app/passes';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { Registration } from '../passkit/registration.entity';
import { PushJob } from './push-job.entity';
import { RegistrationFanOut } from './registration-fan-out';
import { WALLET_A_PUSHER, type WalletAPusher } from './wallet-a-pusher';

/** Registrations read (and pushed) per batch: memory stays flat whatever the audience. */
const BATCH_SIZE = 1000;
const JOBS_PER_TICK = 10;

/**
 * Pushes pass updates to every registered device of the pass (a pass-wide job), of one
 * holder's copy (`holderId`) or of the holders an import changed (`holdersSince`). Any number of workers (processes) can run:
 * a job is claimed with a compare-and-set on its state and lease, processed in batches of
 * registrations in id order, and checkpointed after each batch; a worker that dies is
 * replaced when its lease expires, resuming after the last checkpoint (so at most one batch
 * is pushed twice, which only makes a device fetch the pass once more).
 */
@Injectable()
export class PassUpdateWorker extends LeasedWorker<PushJob> implements OnApplicationShutdown {
  private readonly registrationRows: EntityRows<Registration>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOut: RegistrationFanOut,
    hooks: HolderChanges,
    @Inject(WALLET_A_PUSHER) private readonly pusher: WalletAPusher,
    scheduler: WorkerScheduler,
  ) {
    super('PassUpdates', scheduler, PushJob, { state: 'processing' });
    this.registrationRows = new EntityRows(dataSource, Registration, 'r');
    // A pass change queued a job: push it now rather than at the next poll.
    hooks.onCommitted(() => this.handle.kick());
  }

  /** Runs after the scheduler stopped the polls and the tick in progress finished. */
  async onApplicationShutdown(): Promise<void> {
    await this.pusher.close();
  }

  /** Claims and completes due jobs; returns how many it processed. */
  tick(): Promise<number> {
    return this.handle.drain(
      () => this.claimNext(),
      (job) =>
        this.attemptJob(
          job,
          (claimed) => this.process(claimed),
          (claimed, reason) => this.giveUp(claimed, reason),
        ),
      JOBS_PER_TICK,
    );
  }

  private claimNext(): Promise<PushJob | null> {
    return this.lease.claimNext(
      [{ state: 'pending' }, { state: 'processing', leaseUntil: LessThan(new Date()) }],
      () => ({ state: 'processing' }),
      JOBS_PER_TICK,
    );
  }

  private async process(job: PushJob): Promise<void> {
    let cursor = job.lastRegistrationId;
    const counts = {
      pushed: job.pushedCount,
      unregistered: job.unregisteredCount,
      failed: job.failedCount,
    };
    const started = Date.now();

    for (;;) {
      const batch = await this.batchAfter(job, cursor);
      if (batch.length === 0) break;

      await this.fanOut.push(batch, (_registration, outcome) => {
        if (outcome.status === 'sent') counts.pushed += 1;
        else if (outcome.status === 'unregistered') counts.unregistered += 1;
        else counts.failed += 1;
      });

      cursor = batch[batch.length - 1].id;
      if (!(await this.checkpoint(job, { lastRegistrationId: cursor, ...counts }))) {
        this.logger.warn(
          { jobId: job.id },
          'Lost the lease of a pass update job; another worker goes on',
        );
        return;
      }
      if (batch.length < BATCH_SIZE) break;
    }

    await this.checkpoint(job, { lastRegistrationId: cursor, ...counts }, true);
    this.logger.log(
      {
        jobId: job.id,
        passId: job.passId,
        version: job.passVersion,
        holderId: job.holderId,
        pushed: counts.pushed,
        unregistered: counts.unregistered,
        failed: counts.failed,
        ms: Date.now() - started,
      },
      'Pass update pushed',
    );
  }

  /**
   * The job's next registrations after `cursor`, in id order. A whole pass is read along
   * `ix_registration_pass`, forced: left to itself MariaDB plans a `ref` on (pass_id,
   * removed_time), even with USE INDEX, and reads from the pass's first registration for every
   * batch, quadratic in the pass's devices (see WalletAFanOut). TypeORM's query builder only
   * writes USE INDEX, hence plain SQL here.
   */
  private async batchAfter(job: PushJob, cursor: string | null): Promise<Registration[]> {
    const dialect = sqlDialect(this.dataSource);
    const where = ['r.removed_time IS NULL'];
    const params: unknown[] = [];
    let from: string;
    if (job.holderId !== null) {
      // One holder's copy: along ix_registration_holder.
      from = 'wallet_a_registration r';
      where.push('r.holder_id = ?');
      params.push(job.holderId);
    } else {
      from = `wallet_a_registration r${dialect.forceIndex('ix_registration_pass')}`;
      where.push('r.pass_id = ?');
      params.push(job.passId);
      if (job.holdersSince !== null) {
        from += ' INNER JOIN holder h ON h.id = r.holder_id';
        where.push('h.updated_time >= ?');
        params.push(dialect.writeDate(job.holdersSince));
      }
    }
    if (cursor !== null) {
      where.push('r.id > ?');
      params.push(cursor);
    }
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT ${this.registrationRows.select} FROM ${from} WHERE ${where.join(' AND ')} ` +
        `ORDER BY r.id ASC LIMIT ${BATCH_SIZE}`,
      params,
    );
    return rows.map((row) => this.registrationRows.read(row));
  }

  /**
   * Ends a job that cannot be done: its devices keep the version they have until the pass or
   * holder changes again, which writes a new job. The reason is in the log (push jobs are not
   * shown through the API).
   */
  private async giveUp(job: PushJob, reason: string): Promise<void> {
    await this.lease.finish(job.id, { state: 'failed', finishedTime: new Date() });
    this.logger.error({ jobId: job.id, passId: job.passId, reason }, 'Pass update given up');
  }

  /** Saves progress (and extends the lease) only while this worker still holds the job. */
  private checkpoint(
    job: PushJob,
    progress: {
      lastRegistrationId: string | null;
      pushed: number;
      unregistered: number;
      failed: number;
    },
    finished = false,
  ): Promise<boolean> {
    const changes = {
      lastRegistrationId: progress.lastRegistrationId,
      pushedCount: progress.pushed,
      unregisteredCount: progress.unregistered,
      failedCount: progress.failed,
    };
    return finished
      ? this.lease.finish(job.id, { ...changes, state: 'done', finishedTime: new Date() })
      : this.lease.checkpoint(job.id, changes);
  }
}
