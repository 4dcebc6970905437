import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import type { EntityTarget, FindOptionsWhere } from 'typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Lease, newWorkerId, type LeaseColumns } from './lease';
import { RedisWorkerKicks } from './worker-kicks';

/** A worker whose poll the scheduler owns. */
export interface PolledWorker {
  /** Names its timers in the SchedulerRegistry and its log lines. */
  readonly name: string;
  /** Claims due work in the database and works on it; never runs twice at once. */
  tick(): Promise<unknown>;
  /** Whether this process runs the worker (e.g. only where WalletB is configured). */
  runsHere?(): boolean;
  /** Its own poll interval, for work that is not due every SCHEDULER_INTERVAL_MS (retention). */
  readonly intervalMs?: number;
}

/**
 * The handle a worker gets from {@link WorkerScheduler.register}: it asks for ticks beyond the
 * poll and learns when the process is shutting down.
 */
export class WorkerHandle {
  private running?: Promise<void>;
  private again = false;
  private started = false;
  private stopping = false;

  constructor(
    private readonly worker: PolledWorker,
    private readonly registry: SchedulerRegistry,
    private readonly logger: Logger,
    /** Tells the other processes (through Redis, when configured) to tick this worker too. */
    private readonly announce: (name: string) => void = () => undefined,
  ) {}

  /**
   * Work arrived: runs a tick now, or right after the one in progress, in this process (once
   * started) and in every other process that runs this worker (when REDIS_URL is set; else
   * they find the work at their next poll).
   */
  kick(): void {
    this.announce(this.worker.name);
    this.run();
  }

  /**
   * @internal A tick in this process only: for the poll, timers and kicks from other
   * processes, which must not be announced again. Does nothing until started.
   */
  run(): void {
    if (!this.started || this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.worker
      .tick()
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.error({ err: error }, `${this.worker.name} tick failed`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.run();
        }
      });
  }

  /**
   * Runs a tick in this process only, now or right after the one in progress, without telling
   * the other processes: for a worker whose own capacity freed up (a concurrent delivery ended).
   */
  tickHere(): void {
    this.run();
  }

  /**
   * Whether the process is shutting down: a tick that waits on other processes (a notification
   * whose shards they push) gives up instead of holding the shutdown.
   */
  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Runs one more tick after the current one (work was left over). */
  requestAnother(): void {
    this.again = true;
  }

  /** Kicks once after `delayMs` (e.g. at the next scheduled time), replacing an earlier wake-up. */
  wakeAfter(delayMs: number): void {
    if (!this.started || this.stopping) return;
    this.clearTimer('timeout', this.wakeUpName);
    const timer = setTimeout(() => this.run(), Math.max(0, delayMs));
    timer.unref();
    this.registry.addTimeout(this.wakeUpName, timer);
  }

  /**
   * Claims and works on up to `limit` items, one at a time, stopping early when there is no
   * more or the process is shutting down. Returns how many it worked on.
   */
  async drain<T>(
    claim: () => Promise<T | null>,
    work: (item: T) => Promise<unknown>,
    limit: number,
  ): Promise<number> {
    let done = 0;
    while (done < limit && !this.stopping) {
      const item = await claim();
      if (item === null) break;
      await work(item);
      done += 1;
    }
    return done;
  }

  /** @internal */
  start(intervalMs: number): void {
    this.started = true;
    const poll = setInterval(() => this.run(), intervalMs);
    poll.unref();
    this.registry.addInterval(this.pollName, poll);
    this.run();
  }

  /** @internal Stops the timers and waits for the tick in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.clearTimer('interval', this.pollName);
    this.clearTimer('timeout', this.wakeUpName);
    await this.running;
  }

  private clearTimer(type: 'interval' | 'timeout', name: string): void {
    if (!this.registry.doesExist(type, name)) return;
    if (type === 'interval') this.registry.deleteInterval(name);
    else this.registry.deleteTimeout(name);
  }

  private get pollName(): string {
    return `${this.worker.name}:poll`;
  }

  private get wakeUpName(): string {
    return `${this.worker.name}:wake-up`;
  }
}

/**
 * Owns every worker's poll. Workers register at construction; in a process that runs workers
 * (WORKER_ENABLED, always in `apps/worker`), each is polled every SCHEDULER_INTERVAL_MS from
 * bootstrap, and kicked when work arrives. With REDIS_URL a kick is also published on the
 * `${REDIS_KEY_PREFIX}worker-kicks` channel, to which every process running workers listens,
 * so a separate worker process starts within milliseconds instead of at its next poll. Before
 * shutdown every poll stops and the ticks in progress finish, so the providers they use can
 * close afterwards.
 */
@Injectable()
export class WorkerScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly handles: { worker: PolledWorker; handle: WorkerHandle }[] = [];
  private readonly logger = new Logger('Scheduler');
  /** Set at bootstrap when REDIS_URL is; kicks before that (there are none) stay local. */
  private kicks?: RedisWorkerKicks;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A lease on rows of `entity` for a new worker: WORKER_LEASE_MS long, held while a row also
   * matches `held` (its in-progress states).
   */
  lease<T extends LeaseColumns>(entity: EntityTarget<T>, held: FindOptionsWhere<T>): Lease<T> {
    return new Lease(this.dataSource, {
      entity,
      workerId: newWorkerId(),
      leaseMs: this.config.worker.leaseMs,
      held,
    });
  }

  /** How long a claim holds a job (WORKER_LEASE_MS). */
  get leaseMs(): number {
    return this.config.worker.leaseMs;
  }

  register(worker: PolledWorker): WorkerHandle {
    const handle = new WorkerHandle(worker, this.registry, new Logger(worker.name), (name) =>
      this.kicks?.announce(name),
    );
    this.handles.push({ worker, handle });
    return handle;
  }

  onApplicationBootstrap(): void {
    const { redisUrl, redisKeyPrefix } = this.config.rateLimit;
    // Every process publishes (an API process with WORKER_ENABLED=false is where most work
    // arrives); only those that run workers listen.
    if (redisUrl !== undefined) {
      this.kicks = new RedisWorkerKicks(redisUrl, `${redisKeyPrefix}worker-kicks`, this.logger);
    }
    if (!this.config.worker.enabled) return;
    const started = new Map<string, WorkerHandle>();
    for (const { worker, handle } of this.handles) {
      if (worker.runsHere?.() === false) continue;
      const intervalMs = worker.intervalMs ?? this.config.worker.schedulerIntervalMs;
      handle.start(intervalMs);
      started.set(worker.name, handle);
      this.logger.log(`${worker.name}: polling every ${intervalMs} ms`);
    }
    // Not awaited: start-up does not wait for Redis; until subscribed, the poll covers.
    if (started.size > 0) void this.kicks?.listen((name) => started.get(name)?.run());
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.handles.map(({ handle }) => handle.stop()));
    this.kicks?.close();
  }
}

/**
 * A worker on rows of one entity under a lease, polled by the scheduler: a subclass says what
 * is due and what working on a row means, in its `tick` (usually `this.handle.drain(...)`).
 */
export abstract class LeasedWorker<T extends LeaseColumns> implements PolledWorker {
  protected readonly logger: Logger;
  protected readonly lease: Lease<T>;
  protected readonly handle: WorkerHandle;
  /** How long a claim holds a job (WORKER_LEASE_MS). */
  protected readonly leaseMs: number;

  constructor(
    readonly name: string,
    scheduler: WorkerScheduler,
    entity: EntityTarget<T>,
    held: FindOptionsWhere<T>,
  ) {
    this.logger = new Logger(name);
    this.lease = scheduler.lease(entity, held);
    this.leaseMs = scheduler.leaseMs;
    this.handle = scheduler.register(this);
  }

  /** Runs a tick now, or right after the one in progress, wherever this worker runs. */
  kick(): void {
    this.handle.kick();
  }

  abstract tick(): Promise<unknown>;

  /**
   * Works on a claimed job so that a job that cannot be done ends rather than being claimed
   * forever: an attempt that throws is retried after a back-off (2 s, doubling, at most one
   * lease), and the attempt that throws on the job's {@link MOST_JOB_ATTEMPTS}th claim gives it
   * up through `giveUp`, with a reason for its owner. Attempts count claims, so a worker killed
   * mid-job costs one too; a back-off of 2 + 4 + … + 60 s outlasts a database restart. Errors
   * while recording the outcome (the database is gone) fail the tick: the lease then runs out,
   * and the next claim tries again. Returns how the attempt ended.
   */
  protected async attemptJob(
    job: T,
    work: (job: T) => Promise<void>,
    giveUp: (job: T, reason: string) => Promise<void>,
  ): Promise<'worked' | 'retrying' | 'given up'> {
    try {
      await work(job);
      return 'worked';
    } catch (error) {
      const givingUp = job.attempts >= MOST_JOB_ATTEMPTS;
      this.logger.error(
        { err: error, jobId: job.id, attempts: job.attempts, givingUp },
        `${this.name}: an attempt failed`,
      );
      if (givingUp) {
        await giveUp(job, `Given up after ${job.attempts} failed attempts: ${failureOf(error)}`);
        return 'given up';
      }
      const backOff = Math.min(this.leaseMs, RETRY_BASE_MS * 2 ** (job.attempts - 1));
      await this.lease.retryAt(job.id, new Date(Date.now() + backOff));
      return 'retrying';
    }
  }
}

/** Claims of a job after which an attempt that fails ends it: see {@link LeasedWorker.attemptJob}. */
export const MOST_JOB_ATTEMPTS = 8;

const RETRY_BASE_MS = 2000;

/**
 * What went wrong, in words a job's owner can read in its failure reason: never the SQL or a
 * stack (those are in the log, with the job's id).
 */
export function failureOf(error: unknown): string {
  if (error instanceof QueryFailedError) {
    return 'the database could not run a statement the job needs (see the log for the job id)';
  }
  return 'an unexpected error (see the log for the job id)';
}

/** The scheduler, once for the whole application (it registers @nestjs/schedule's registry). */
@Global()
@Module({
  imports: [ScheduleModule.forRoot()],
  providers: [WorkerScheduler],
  exports: [WorkerScheduler],
})
export class SchedulerModule {}
