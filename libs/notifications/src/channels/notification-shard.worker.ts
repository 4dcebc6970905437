import { LeasedWorker, WorkerScheduler } from '@app/core';
import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { DataSource, IsNull, LessThan, type FindOptionsWhere } from 'typeorm';
import { WalletAFanOut } from './wallet-a-fan-out';
import { NotificationShard } from '../entities/notification-shard.entity';
import { Notification } from '../entities/notification.entity';
import { recipientsOf, snapshotTaken } from '../notification-target';

const SHARDS_PER_TICK = 10;

/**
 * How often a worker holding a notification looks whether the shards other processes push are
 * done (a shard finished in this process tells it at once).
 */
const SHARD_WAIT_MS = 200;

/**
 * Pushes the shards of notifications' WalletA fan-outs (`WalletANotificationChannel` cuts them):
 * any worker, in any process, claims an open shard under a lease, pushes its range through
 * {@link WalletAFanOut} (checkpointing the shard's cursor per batch) and marks it done, so N
 * workers fan one notification out together. A shard whose worker died is taken over when its
 * lease runs out, resuming after its cursor.
 *
 * The worker holding the notification pushes its shards too ({@link pushShardsOf}), then waits
 * for those that others hold; it alone then finishes the notification. One shard at a time per
 * process: the notification's worker pushes one only while this worker's ticks push none (it
 * waits, extending its lease, otherwise), so a process has at most one shard's pushes in flight
 * (the window a crash may push twice).
 */
@Injectable()
export class NotificationShardWorker extends LeasedWorker<NotificationShard> {
  /** The shard pushed in this process now; the next waits for it. */
  private turn: Promise<void> = Promise.resolve();
  /** Turns taken or waited for. */
  private turns = 0;
  /** Emits a notification's id when this process finishes one of its shards. */
  private readonly shardDone = new EventEmitter();

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOut: WalletAFanOut,
    scheduler: WorkerScheduler,
  ) {
    super('NotificationShards', scheduler, NotificationShard, { state: 'open' });
    this.shardDone.setMaxListeners(0);
  }

  /** Pushes open shards of any notification; returns how many it took. */
  async tick(): Promise<number> {
    // Claiming and pushing are one turn (a shard is not claimed to wait for the turn), so the
    // work step of drain has nothing left to do.
    const pushed = await this.handle.drain(
      () => this.inTurn(() => this.pushNext({})),
      () => Promise.resolve(),
      SHARDS_PER_TICK,
    );
    if (pushed === SHARDS_PER_TICK) this.handle.requestAnother();
    return pushed;
  }

  /**
   * For the worker holding `notification`: pushes its open shards one after another, then
   * waits until the shards other workers hold are done too (taking over any whose lease runs
   * out). `keepAlive` extends the notification's lease after every batch and while waiting;
   * returns false when it was lost or the process is shutting down (the notification's lease
   * then runs out and another worker goes on).
   */
  async pushShardsOf(
    notification: Notification,
    keepAlive: () => Promise<boolean>,
  ): Promise<boolean> {
    const mine = { notificationId: notification.id, workspaceId: notification.workspaceId };
    for (;;) {
      for (;;) {
        if (this.handle.shuttingDown) return false;
        // Not queued behind a shard this process pushes now (its tick's): the notification's
        // lease would go unextended meanwhile. That shard is pushed anyway; wait for it below.
        const pushing =
          this.turns === 0 ? this.inTurn(() => this.pushNext(mine, notification, keepAlive)) : null;
        const shard = pushing === null ? null : await pushing;
        if (shard === null) break;
        if (!(await keepAlive())) return false;
      }
      const open = await this.dataSource
        .getRepository(NotificationShard)
        .countBy({ ...mine, state: 'open' });
      if (open === 0) return true;
      if (this.handle.shuttingDown) return false;
      await this.shardDoneOr(notification.id, SHARD_WAIT_MS);
      if (!(await keepAlive())) return false;
    }
  }

  /**
   * Claims the next open shard (of `where`) whose lease is absent or ran out and pushes it;
   * returns it, or null when none was due.
   */
  private async pushNext(
    where: FindOptionsWhere<NotificationShard>,
    given?: Notification,
    afterBatch?: () => Promise<boolean>,
  ): Promise<NotificationShard | null> {
    const now = new Date();
    const shard = await this.lease.claimNext([
      { ...where, state: 'open', leaseUntil: IsNull() },
      { ...where, state: 'open', leaseUntil: LessThan(now) },
    ]);
    if (shard === null) return null;
    const notification =
      given ??
      (await this.dataSource.getRepository(Notification).findOneByOrFail({
        id: shard.notificationId,
        workspaceId: shard.workspaceId,
      }));
    // A shard an older worker cut before chosen holders were written down: whom it reaches is
    // not known yet. It stays open under this lease; once the lease runs out it is claimed again,
    // by the notification's worker among others, which writes the holders down first.
    if (!snapshotTaken(notification)) return shard;
    let pushed = false;
    const attempt = await this.attemptJob(
      shard,
      async () => {
        pushed = await this.fanOut.push(
          notification,
          recipientsOf(notification),
          shard,
          async (cursor) => {
            const held = await this.lease.checkpoint(shard.id, { fanoutCursor: cursor });
            // The notification's lease too, for its worker: a shard may take longer than a lease.
            await afterBatch?.();
            return held;
          },
        );
      },
      async (_shard, reason) => {
        this.logger.error(
          { notificationId: notification.id, shard: shard.position, reason },
          'Notification shard given up',
        );
        if (await this.lease.finish(shard.id, { state: 'failed' })) {
          this.shardDone.emit(notification.id);
        }
      },
    );
    if (attempt !== 'worked') return shard;
    if (pushed && (await this.lease.finish(shard.id, { state: 'done' }))) {
      this.logger.log(
        { notificationId: notification.id, shard: shard.position, attempts: shard.attempts },
        'Notification shard pushed',
      );
      this.shardDone.emit(notification.id);
    } else {
      this.logger.warn(
        { notificationId: notification.id, shard: shard.position },
        'Lost the lease of a notification shard; another worker goes on',
      );
    }
    return shard;
  }

  /** Runs `work` once the shard pushed in this process before it is done. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    this.turns += 1;
    const result = this.turn.then(work);
    this.turn = result.then(
      () => {
        this.turns -= 1;
      },
      () => {
        this.turns -= 1;
      },
    );
    return result;
  }

  /** Resolves after `ms`, or sooner when this process finishes a shard of the notification. */
  private shardDoneOr(notificationId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.shardDone.off(notificationId, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.shardDone.on(notificationId, done);
    });
  }
}
