import { betweenBatches, APP_CONFIG, withDatabaseTimeouts, type AppConfig } from '@app/core';
import { AudiencesService } from '@app/audiences';
import { HolderChanges, type Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  NotificationDelivery,
  type DeliveryOutcome,
} from '../entities/notification-delivery.entity';
import type { Notification } from '../entities/notification.entity';
import { NotificationShard } from '../entities/notification-shard.entity';
import { NotificationShardWorker } from './notification-shard.worker';
import { WalletAFanOut } from './wallet-a-fan-out';
import type {
  ChannelResult,
  DeliveryCheckpoint,
  NotificationChannel,
} from './notification-channel';

class LeaseLost extends Error {}

/**
 * WalletA: the message becomes the pass's notification field and the pass version moves on
 * (once: `preparedVersion`, status Initializing → Processing), or with `holderIds` the chosen
 * holders' own message field and versions, or with an audience or a segment those of the holders
 * it matched when sent (`audienceSize` set: the worker wrote them into `audience_member`); then
 * the registered devices (of those holders) are
 * cut into shards (once: `shardCount`), which this worker and any other push
 * ({@link NotificationShardWorker}), each outcome recorded per device so that devices already
 * recorded are skipped on resume; once every shard is done, Processing → Finalizing. The
 * outcome counts the recorded deliveries.
 */
@Injectable()
export class WalletANotificationChannel implements NotificationChannel {
  readonly platform = 'apple';
  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOut: WalletAFanOut,
    private readonly shardWorker: NotificationShardWorker,
    private readonly holderChanges: HolderChanges,
    private readonly audiences: AudiencesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async deliver(
    notification: Notification,
    pass: Pass,
    checkpoint: DeliveryCheckpoint,
  ): Promise<ChannelResult | null> {
    if (
      notification.preparedVersion === null &&
      !(await this.prepare(notification, pass, checkpoint))
    ) {
      return null;
    }
    if (notification.status !== 'Finalizing') {
      if (notification.shardCount === null && !(await this.cut(notification, checkpoint))) {
        return null;
      }
      const pushed = await this.shardWorker.pushShardsOf(notification, () => checkpoint({}));
      if (!pushed || !(await checkpoint({ status: 'Finalizing' }))) return null;
      notification.status = 'Finalizing';
    }
    return this.outcome(notification);
  }

  /**
   * Puts the message on the pass (its WalletA notification field) and moves the version on; or,
   * for chosen holders (`holderIds`) or an audience's, on those holders' passes only, moving
   * their versions on.
   */
  private async prepare(
    notification: Notification,
    pass: Pass,
    checkpoint: DeliveryCheckpoint,
  ): Promise<boolean> {
    if (notification.holderIds === null && notification.audienceSize !== null) {
      return this.prepareAudience(notification, pass, checkpoint);
    }
    const now = new Date();
    const prepared = await this.holderChanges
      .transaction(async (changes) => {
        // The message and the version go together; this worker pushes the devices itself (the
        // fan-out below, resumable per device), so no pass update job is queued.
        const message = (label: string | null) => ({
          notificationId: notification.id,
          label,
          message: notification.notificationMessage ?? '',
        });
        let version = pass.version;
        if (notification.holderIds !== null) {
          await changes.messageHolders(
            pass.id,
            notification.holderIds,
            message(pass.notificationHeader),
            now,
          );
        } else {
          const locked = await changes.bumpPassVersion(
            { id: pass.id },
            (current) => ({ walletAMessage: message(current.notificationHeader) }),
            { now, announce: false },
          );
          if (locked === null) throw new LeaseLost();
          version = locked.version;
        }
        const held = await checkpoint(
          { preparedVersion: version, status: 'Processing', sentTime: now },
          changes.manager,
        );
        if (!held) throw new LeaseLost();
        return version;
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return null;
        throw error;
      });
    if (prepared === null) return false;
    Object.assign(notification, { preparedVersion: prepared, status: 'Processing', sentTime: now });
    return true;
  }

  /**
   * {@link prepare} for the holders an audience matched when the notification was sent (the
   * worker wrote them down): the message goes on their passes in batches of the snapshot in id
   * order, each in one transaction with its checkpoint (`prepareCursor`), under the worker's
   * query deadline, the last one also recording the notification as prepared. One UPDATE of
   * 725,670 holders outlasted every deadline and was rolled back at every attempt.
   */
  private async prepareAudience(
    notification: Notification,
    pass: Pass,
    checkpoint: DeliveryCheckpoint,
  ): Promise<boolean> {
    const { snapshotBatchSize, batchQueryMs } = this.config.worker;
    const message = {
      notificationId: notification.id,
      label: pass.notificationHeader,
      message: notification.notificationMessage ?? '',
    };
    const now = new Date();
    for (;;) {
      const step = await withDatabaseTimeouts({ queryMs: batchQueryMs }, () =>
        this.holderChanges.transaction(async (changes) => {
          const ids = await this.audiences.snapshotPage(
            changes.manager,
            notification.id,
            notification.prepareCursor,
            snapshotBatchSize,
          );
          await changes.messageHolders(pass.id, ids, message, now);
          const progress: Partial<Notification> = {
            prepareCursor: ids.at(-1) ?? notification.prepareCursor,
          };
          if (ids.length < snapshotBatchSize) {
            Object.assign(progress, {
              preparedVersion: pass.version,
              status: 'Processing',
              sentTime: now,
            });
          }
          if (!(await checkpoint(progress, changes.manager))) throw new LeaseLost();
          return progress;
        }),
      ).catch((error: unknown) => {
        if (error instanceof LeaseLost) return null;
        throw error;
      });
      if (step === null) return false;
      Object.assign(notification, step);
      if (step.preparedVersion !== undefined) return true;
      await betweenBatches();
    }
  }

  /**
   * Cuts the recipients into shards, once ({@link WalletAFanOut.cut}), and wakes the other
   * processes' shard workers (through Redis, when configured; else they come at their next
   * poll). One shard is this worker's alone: nobody else need wake up for it.
   */
  private async cut(notification: Notification, checkpoint: DeliveryCheckpoint): Promise<boolean> {
    // Batch work: reading the ranges of an audience's devices is not a request's query.
    const count = await withDatabaseTimeouts({ queryMs: this.config.worker.batchQueryMs }, () =>
      this.fanOut.cut(notification, this.config.worker.notificationShardSize, checkpoint),
    );
    if (count === null) return false;
    notification.shardCount = count;
    if (count > 1) this.shardWorker.kick();
    return true;
  }

  /** The platform's outcome from the recorded deliveries. */
  private async outcome(notification: Notification): Promise<ChannelResult> {
    const counts = await this.dataSource
      .getRepository(NotificationDelivery)
      .createQueryBuilder('d')
      .select('d.outcome', 'outcome')
      .addSelect('COUNT(*)', 'total')
      .where('d.notification_id = :id', { id: notification.id })
      .groupBy('d.outcome')
      .getRawMany<{ outcome: DeliveryOutcome; total: string | number }>();
    const count = (outcome: DeliveryOutcome) =>
      Number(counts.find((c) => c.outcome === outcome)?.total ?? 0);
    const sent = count('sent');
    const failed = count('failed');

    const unavailable = this.fanOut.unavailableReason();
    if (unavailable !== null) return { outcome: 'failed', sent, reason: unavailable };
    const givenUp = await this.dataSource
      .getRepository(NotificationShard)
      .countBy({ notificationId: notification.id, state: 'failed' });
    if (givenUp > 0) {
      const reason = `${givenUp} of ${notification.shardCount ?? givenUp} parts of the fan-out were given up after repeated failures`;
      return { outcome: sent > 0 ? 'success' : 'failed', sent, reason };
    }
    if (failed > 0 && sent === 0) {
      return { outcome: 'failed', sent, reason: `APNs accepted none of ${failed} pushes` };
    }
    return { outcome: 'success', sent, reason: null };
  }
}
