import { APP_CONFIG, TickLoop, type AppConfig } from '@app/core';
import { HolderChanges } from '@app/passes';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Brackets, DataSource, IsNull, LessThan, MoreThan, type FindOptionsWhere } from 'typeorm';
import { Registration } from '../passkit/registration.entity';
import { RegistrationsService } from '../passkit/registrations.service';
import { PushJob } from './push-job.entity';
import { WALLET_A_PUSHER, type WalletAPusher } from './wallet-a-pusher';

/** Registrations read (and pushed) per batch: memory stays flat whatever the audience. */
const BATCH_SIZE = 1000;
const JOBS_PER_TICK = 10;

/**
 * Pushes pass updates to every registered device. Any number of workers (processes) can run:
 * a job is claimed with a compare-and-set on its state and lease, processed in batches of
 * registrations in id order, and checkpointed after each batch; a worker that dies is
 * replaced when its lease expires, resuming after the last checkpoint (so at most one batch
 * is pushed twice, which only makes a device fetch the pass once more).
 */
@Injectable()
export class PassUpdateWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PassUpdates');
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly loop = new TickLoop('Pass update', () => this.tick(), this.logger);
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registrations: RegistrationsService,
    private readonly hooks: HolderChanges,
    @Inject(WALLET_A_PUSHER) private readonly pusher: WalletAPusher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.worker.enabled) return;
    this.hooks.onCommitted(() => this.loop.kick());
    this.loop.start(this.config.worker.schedulerIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.pusher.close();
  }

  /** Claims and completes due jobs; returns how many it processed. */
  async tick(): Promise<number> {
    let processed = 0;
    while (processed < JOBS_PER_TICK && !this.stopped) {
      const job = await this.claimNext();
      if (job === null) break;
      await this.process(job);
      processed += 1;
    }
    return processed;
  }

  private async claimNext(): Promise<PushJob | null> {
    const jobs = this.dataSource.getRepository(PushJob);
    const now = new Date();
    const candidates = await jobs
      .createQueryBuilder('job')
      .where(
        new Brackets((where) =>
          where
            .where("job.state = 'pending'")
            .orWhere("job.state = 'processing' AND job.lease_until < :now", { now }),
        ),
      )
      .orderBy('job.id', 'ASC')
      .take(JOBS_PER_TICK)
      .getMany();

    for (const candidate of candidates) {
      const claimable: FindOptionsWhere<PushJob>[] = [
        { id: candidate.id, state: 'pending' },
        { id: candidate.id, state: 'processing', leaseUntil: LessThan(now) },
      ];
      const leaseUntil = new Date(now.getTime() + this.config.worker.leaseMs);
      for (const where of claimable) {
        const claimed = await jobs.update(where, {
          state: 'processing',
          leaseUntil,
          leasedBy: this.workerId,
          attempts: candidate.attempts + 1,
          updatedTime: now,
        });
        if (claimed.affected === 1) {
          return { ...candidate, state: 'processing', leaseUntil, leasedBy: this.workerId };
        }
      }
    }
    return null;
  }

  private async process(job: PushJob): Promise<void> {
    const registrations = this.dataSource.getRepository(Registration);
    let cursor = job.lastRegistrationId;
    const counts = {
      pushed: job.pushedCount,
      unregistered: job.unregisteredCount,
      failed: job.failedCount,
    };
    const started = Date.now();

    for (;;) {
      const batch = await registrations.find({
        where: {
          passId: job.passId,
          removedTime: IsNull(),
          ...(cursor ? { id: MoreThan(cursor) } : {}),
        },
        order: { id: 'ASC' },
        take: BATCH_SIZE,
      });
      if (batch.length === 0) break;

      const byToken = new Map<string, Registration[]>();
      for (const registration of batch) {
        const same = byToken.get(registration.pushToken);
        if (same) same.push(registration);
        else byToken.set(registration.pushToken, [registration]);
      }
      await this.pusher.pushUpdates([...byToken.keys()], async (token, outcome) => {
        const owners = byToken.get(token) ?? [];
        if (outcome.status === 'sent') counts.pushed += owners.length;
        else if (outcome.status === 'unregistered') {
          counts.unregistered += owners.length;
          for (const registration of owners)
            await this.registrations.removeUnreachable(registration);
        } else counts.failed += owners.length;
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
        pushed: counts.pushed,
        unregistered: counts.unregistered,
        failed: counts.failed,
        ms: Date.now() - started,
      },
      'Pass update pushed',
    );
  }

  /** Saves progress (and extends the lease) only while this worker still holds the job. */
  private async checkpoint(
    job: PushJob,
    progress: {
      lastRegistrationId: string | null;
      pushed: number;
      unregistered: number;
      failed: number;
    },
    finished = false,
  ): Promise<boolean> {
    const now = new Date();
    const result = await this.dataSource.getRepository(PushJob).update(
      { id: job.id, leasedBy: this.workerId, state: 'processing' },
      {
        lastRegistrationId: progress.lastRegistrationId,
        pushedCount: progress.pushed,
        unregisteredCount: progress.unregistered,
        failedCount: progress.failed,
        updatedTime: now,
        ...(finished
          ? { state: 'done', finishedTime: now, leaseUntil: null }
          : { leaseUntil: new Date(now.getTime() + this.config.worker.leaseMs) }),
      },
    );
    return result.affected === 1;
  }
}
