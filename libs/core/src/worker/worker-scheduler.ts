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
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { Lease, newWorkerId, type LeaseColumns } from './lease';

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
  ) {}

  /** Runs a tick now, or right after the one in progress. Does nothing until started. */
  kick(): void {
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
          this.kick();
        }
      });
  }

  /** Runs one more tick after the current one (work was left over). */
  requestAnother(): void {
    this.again = true;
  }

  /** Kicks once after `delayMs` (e.g. at the next scheduled time), replacing an earlier wake-up. */
  wakeAfter(delayMs: number): void {
    if (!this.started || this.stopping) return;
    this.clearTimer('timeout', this.wakeUpName);
    const timer = setTimeout(() => this.kick(), Math.max(0, delayMs));
    timer.unref();
    this.registry.addTimeout(this.wakeUpName, timer);
  }

  /**
   * Claims and works on up to `limit` items, one at a time, stopping early when there is no
   * more or the process is shutting down. Returns how many it worked on.
   */
  async drain<T>(
    claim: () => Promise<T | null>,
    work: (item: T) => Promise<void>,
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
    const poll = setInterval(() => this.kick(), intervalMs);
    poll.unref();
    this.registry.addInterval(this.pollName, poll);
    this.kick();
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
 * bootstrap, and kicked when work arrives in this process. Before shutdown every poll stops
 * and the ticks in progress finish, so the providers they use can close afterwards.
 */
@Injectable()
export class WorkerScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly handles: { worker: PolledWorker; handle: WorkerHandle }[] = [];
  private readonly logger = new Logger('Scheduler');

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

  register(worker: PolledWorker): WorkerHandle {
    const handle = new WorkerHandle(worker, this.registry, new Logger(worker.name));
    this.handles.push({ worker, handle });
    return handle;
  }

  onApplicationBootstrap(): void {
    if (!this.config.worker.enabled) return;
    for (const { worker, handle } of this.handles) {
      if (worker.runsHere?.() === false) continue;
      const intervalMs = worker.intervalMs ?? this.config.worker.schedulerIntervalMs;
      handle.start(intervalMs);
      this.logger.log(`${worker.name}: polling every ${intervalMs} ms`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.handles.map(({ handle }) => handle.stop()));
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

  constructor(
    readonly name: string,
    scheduler: WorkerScheduler,
    entity: EntityTarget<T>,
    held: FindOptionsWhere<T>,
  ) {
    this.logger = new Logger(name);
    this.lease = scheduler.lease(entity, held);
    this.handle = scheduler.register(this);
  }

  /** Runs a tick now (in a process that runs workers), or right after the one in progress. */
  kick(): void {
    this.handle.kick();
  }

  abstract tick(): Promise<unknown>;
}

/** The scheduler, once for the whole application (it registers @nestjs/schedule's registry). */
@Global()
@Module({
  imports: [ScheduleModule.forRoot()],
  providers: [WorkerScheduler],
  exports: [WorkerScheduler],
})
export class SchedulerModule {}
