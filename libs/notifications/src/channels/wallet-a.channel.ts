import {
  APP_CONFIG,
  checkpointedBatches,
  CheckpointRefused,
  withDatabaseTimeouts,
  type AppConfig,
} from '@app/core';
import { AudiencesService } from '@app/audiences';
import { HolderChanges, type Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  NotificationDelivery,
  type DeliveryOutcome,
} from '../entities/notification-delivery.entity';
import type { Notification } from '../entities/notification.entity';
import type { Recipients } from '../notification-target';
import { NotificationShard } from '../entities/notification-shard.entity';
import { NotificationShardWorker } from './notification-shard.worker';
import { WalletAFanOut } from './wallet-a-fan-out';
import type {
  ChannelResult,
  DeliveryCheckpoint,
  NotificationChannel,
} from './notification-channel';

/**
 * WalletA: the message becomes the pass's notification field and the pass version moves on
 * (once: `preparedVersion`, status Initializing → Processing), or for a snapshot the own message
 * field and versions of its holders; then the registered devices (of those holders) are
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
    recipients: Recipients,
    checkpoint: DeliveryCheckpoint,
  ): Promise<ChannelResult | null> {
    if (notification.preparedVersion === null) {
      const prepared =
        recipients.kind === 'snapshot'
          ? await this.prepareSnapshot(notification, recipients.notificationId, pass, checkpoint)
          : await this.preparePass(notification, pass, checkpoint);
      if (!prepared) return null;
    }
    if (notification.status !== 'Finalizing') {
      if (
        notification.shardCount === null &&
        !(await this.cut(notification, recipients, checkpoint))
      ) {
        return null;
      }
      const pushed = await this.shardWorker.pushShardsOf(notification, () => checkpoint({}));
      if (!pushed || !(await checkpoint({ status: 'Finalizing' }))) return null;
      notification.status = 'Finalizing';
    }
    return this.outcome(notification);
  }

  /** Puts the message on the pass (its WalletA notification field) and moves the version on. */
  private async preparePass(
    notification: Notification,
    pass: Pass,
    checkpoint: DeliveryCheckpoint,
  ): Promise<boolean> {
    const now = new Date();
    const prepared = await this.holderChanges
      .transaction(async (changes) => {
        // The message and the version go together; this worker pushes the devices itself (the
        // fan-out below, resumable per device), so no pass update job is queued.
        const locked = await changes.bumpPassVersion(
          { id: pass.id },
          (current) => ({
            walletAMessage: {
              notificationId: notification.id,
              label: current.notificationHeader,
              message: notification.notificationMessage ?? '',
            },
          }),
          { now, announce: false },
        );
        if (locked === null) throw new CheckpointRefused();
        const held = await checkpoint(
          { preparedVersion: locked.version, status: 'Processing', sentTime: now },
          changes.manager,
        );
        if (!held) throw new CheckpointRefused();
        return locked.version;
      })
      .catch((error: unknown) => {
        if (error instanceof CheckpointRefused) return null;
        throw error;
      });
    if (prepared === null) return false;
    Object.assign(notification, { preparedVersion: prepared, status: 'Processing', sentTime: now });
    return true;
  }

  /**
   * Puts the message on the passes of the snapshot's holders (those still Active) and moves their
   * versions on, in batches of the snapshot in id order ({@link checkpointedBatches}), each in
   * one transaction with its checkpoint (`prepareCursor`), under the worker's query deadline, the
   * last one also recording the notification as prepared. One UPDATE of 725,670 holders outlasted
   * every deadline and was rolled back at every attempt.
   */
  private async prepareSnapshot(
    notification: Notification,
    snapshotId: string,
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
    const end = await checkpointedBatches({ queryMs: batchQueryMs }, async () => {
      const step = await this.holderChanges.transaction(async (changes) => {
        const ids = await this.audiences.snapshotPage(
          changes.manager,
          snapshotId,
          notification.prepareCursor,
          snapshotBatchSize,
        );
        // This worker pushes the devices itself (the fan-out below), so nothing is announced.
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
        if (!(await checkpoint(progress, changes.manager))) throw new CheckpointRefused();
        return progress;
      });
      Object.assign(notification, step);
      return step.preparedVersion !== undefined;
    });
    return end === 'done';
  }

  /**
   * Cuts the recipients into shards, once ({@link WalletAFanOut.cut}), and wakes the other
   * processes' shard workers (through Redis, when configured; else they come at their next
   * poll). One shard is this worker's alone: nobody else need wake up for it.
   */
  private async cut(
    notification: Notification,
    recipients: Recipients,
    checkpoint: DeliveryCheckpoint,
  ): Promise<boolean> {
    // Batch work: reading the ranges of an audience's devices is not a request's query.
    const count = await withDatabaseTimeouts({ queryMs: this.config.worker.batchQueryMs }, () =>
      this.fanOut.cut(
        notification,
        recipients,
        this.config.worker.notificationShardSize,
        checkpoint,
      ),
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
