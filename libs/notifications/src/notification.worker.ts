import {
  APP_CONFIG,
  checkpointedBatches,
  CheckpointRefused,
  InvalidInputError,
  LeasedWorker,
  NotFoundError,
  ServiceEvents,
  sqlDialect,
  WorkerScheduler,
  type AppConfig,
} from '@app/core';
import { AudiencesService, type ResolvedAudience } from '@app/audiences';
import { Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, LessThan, LessThanOrEqual } from 'typeorm';
import type { EntityManager } from 'typeorm';
import {
  NOTIFICATION_CHANNELS,
  type ChannelResult,
  type DeliveryCheckpoint,
  type NotificationChannel,
} from './channels/notification-channel';
import { DeliveryService } from './delivery/delivery.service';
import { toNotificationResponse } from './dto/notification.response';
import {
  ACTIVE_STATUSES,
  Notification,
  type JsonObject,
  type NotificationStatus,
} from './entities/notification.entity';
import { recipientsOf, snapshotTaken, type Recipients } from './notification-target';

const NOTIFICATIONS_PER_TICK = 10;

/** How failure reasons name the platforms. */
const PLATFORM_NAMES = { apple: 'WalletA', google: 'WalletB' } as const;

/** A platform no channel delivered to (none configured for it). */
const NOT_SENT: ChannelResult = { outcome: 'failed', sent: 0, reason: null };

/**
 * Delivers notifications. Any number of workers share one database: a notification is
 * claimed by compare-and-set under a lease, and each phase is idempotent and checkpointed, so
 * a worker that dies is replaced when its lease runs out and nothing is lost or sent twice
 * (beyond the pushes it had in flight):
 * a notification to chosen holders, an audience or a segment first has its holders written
 * down, once ({@link snapshotChosen}, {@link evaluateAudience}), and each channel is given
 * that snapshot as its recipients ({@link recipientsOf}), or the whole pass; then
 * each platform's channel ({@link NOTIFICATION_CHANNELS}: WalletA, then WalletB) delivers in
 * turn, resuming from its own checkpoints (WalletA moves the status through Initializing,
 * Processing and Finalizing), and the outcome of each platform gives the final status.
 * WalletA's fan-out is cut into shards that workers in every process push
 * (`NotificationShardWorker`); the worker holding the notification pushes some too, waits
 * for the rest, and alone goes on to WalletB and the final status.
 */
@Injectable()
export class NotificationWorker extends LeasedWorker<Notification> {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(NOTIFICATION_CHANNELS) private readonly channels: readonly NotificationChannel[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: ServiceEvents,
    private readonly delivery: DeliveryService,
    private readonly audiences: AudiencesService,
    scheduler: WorkerScheduler,
  ) {
    super('Notifications', scheduler, Notification, { status: In(ACTIVE_STATUSES) });
  }

  /** Claims due notifications and delivers them; returns how many it took. */
  async tick(): Promise<number> {
    const delivered = await this.handle.drain(
      () => this.claimNext(),
      (notification) =>
        this.attemptJob(
          notification,
          (claimed) => this.deliver(claimed),
          (claimed, reason) => this.finish(claimed, 'Failed', reason),
        ),
      NOTIFICATIONS_PER_TICK,
    );
    if (delivered === NOTIFICATIONS_PER_TICK) this.handle.requestAnother();
    else await this.wakeForNextScheduled();
    return delivered;
  }

  /**
   * Polling alone would send a scheduled notification up to one interval late; a timer set
   * for the next scheduled time (when it falls within the interval) sends it on time.
   */
  private async wakeForNextScheduled(): Promise<void> {
    if (!this.config.worker.enabled) return;
    const next = await this.dataSource
      .getRepository(Notification)
      .createQueryBuilder('n')
      .select('MIN(n.scheduled_time)', 'at')
      .where("n.status = 'Scheduled'")
      .getRawOne<{ at: Date | string | null }>();
    if (next?.at === null || next?.at === undefined) return;
    const at = sqlDialect(this.dataSource).readDate(next.at);
    const wait = at.getTime() - Date.now();
    if (wait <= this.config.worker.schedulerIntervalMs) this.handle.wakeAfter(wait + 5);
  }

  private claimNext(): Promise<Notification | null> {
    const now = new Date();
    return this.lease.claimNext(
      [
        { status: 'Scheduled', scheduledTime: LessThanOrEqual(now) },
        { status: In(ACTIVE_STATUSES), leaseUntil: IsNull() },
        { status: In(ACTIVE_STATUSES), leaseUntil: LessThan(now) },
      ],
      (candidate) => (candidate.status === 'Scheduled' ? { status: 'Initializing' } : {}),
      NOTIFICATIONS_PER_TICK,
    );
  }

  private async deliver(notification: Notification): Promise<void> {
    const pass = await this.dataSource.getRepository(Pass).findOneBy({ id: notification.passId });
    if (pass === null || pass.deletedTime !== null) {
      await this.finish(
        notification,
        'Failed',
        'The pass was deleted before the notification went out',
      );
      return;
    }
    if (!(await this.writeDownHolders(notification, pass))) return;
    await this.deliverThroughChannels(notification, pass, recipientsOf(notification));
  }

  /**
   * Writes down the holders a targeted notification reaches, unless it is done already; false
   * when the notification is not to be delivered by this worker now (see {@link evaluateAudience}).
   */
  private writeDownHolders(notification: Notification, pass: Pass): Promise<boolean> {
    if (snapshotTaken(notification)) return Promise.resolve(true);
    return notification.holderIds !== null
      ? this.snapshotChosen(notification, pass, notification.holderIds)
      : this.evaluateAudience(notification, pass);
  }

  /**
   * Writes the chosen holders (those of the pass among them, whatever their status, as an
   * audience's snapshot holds whoever it matched) into `audience_member` under the
   * notification's id, the same way as an audience's ({@link snapshotInBatches}): in batches of
   * the ids in order, the checkpoint (`snapshotCursor`) the last id of the batch, until it is the
   * last chosen id ({@link snapshotTaken}); `audienceSize` stays null, as the API shows it for
   * an audience or a segment only.
   */
  private async snapshotChosen(
    notification: Notification,
    pass: Pass,
    holderIds: readonly string[],
  ): Promise<boolean> {
    const { snapshotBatchSize } = this.config.worker;
    return this.snapshotInBatches(notification, async (manager) => {
      const batch = await this.audiences.snapshotChosenBatch(
        manager,
        notification.id,
        pass,
        holderIds,
        notification.snapshotCursor,
        snapshotBatchSize,
      );
      return {
        progress: { snapshotCursor: batch.last ?? notification.snapshotCursor },
        last: batch.done,
      };
    });
  }

  /**
   * Writes down whom an audience or a segment (its audience as it is now) matches, when the
   * notification goes out (a Scheduled one reaches whoever matches at its time):
   * the holders into `audience_member` under the notification's id, in batches of holders in id
   * order, each in one transaction with its checkpoint (`snapshotCursor`) that commits only while
   * this worker holds the lease; the last one also sets `audienceSize`. Both channels then deliver
   * to that snapshot alone, and a resumed delivery (audienceSize set) never takes another. The
   * audience the first batch read is kept on the notification, so a resumed snapshot goes on with
   * the same one even if its segment changed meanwhile. Batches have the worker's query deadline
   * (WORKER_QUERY_TIMEOUT_MS), not a request's. False when the lease was lost, the process is
   * shutting down, or the notification was finished as Failed (its segment deleted, its audience
   * no longer fitting the pass).
   */
  private async evaluateAudience(notification: Notification, pass: Pass): Promise<boolean> {
    let resolved: ResolvedAudience;
    try {
      // Read before the transaction: on SQLite a read outside it would wait for it to end.
      resolved = await this.audiences.resolve(
        notification.workspaceId,
        pass,
        notification.snapshotCursor === null
          ? { audience: notification.audience, segmentId: notification.segmentId }
          : { audience: notification.audience },
      );
    } catch (error) {
      const reason = unresolvable(error);
      if (reason === null) throw error;
      await this.finish(notification, 'Failed', reason);
      return false;
    }
    // Parsed JSON: every value is an object, an array or a scalar.
    const audience = resolved.audience as JsonObject;
    const { snapshotBatchSize } = this.config.worker;
    const taken = await this.snapshotInBatches(notification, async (manager) => {
      const batch = await this.audiences.snapshotBatch(
        manager,
        notification.id,
        pass,
        resolved.condition,
        notification.snapshotCursor,
        snapshotBatchSize,
      );
      const progress: Partial<Notification> = {
        audience,
        snapshotCursor: batch.last ?? notification.snapshotCursor,
      };
      if (batch.done) {
        progress.audienceSize = await this.audiences.snapshotSize(manager, notification.id);
      }
      return { progress, last: batch.done };
    });
    if (!taken) return false;
    this.logger.log(
      { notificationId: notification.id, holders: notification.audienceSize },
      'Audience evaluated',
    );
    return true;
  }

  /**
   * Writes a snapshot batch by batch ({@link checkpointedBatches}): each `write` in one
   * transaction with its progress, which commits only while this worker holds the lease, under
   * the worker's query deadline. False when the lease was lost or the process is shutting down.
   */
  private async snapshotInBatches(
    notification: Notification,
    write: (manager: EntityManager) => Promise<{ progress: Partial<Notification>; last: boolean }>,
  ): Promise<boolean> {
    const end = await checkpointedBatches(
      { queryMs: this.config.worker.batchQueryMs, stopping: () => this.handle.shuttingDown },
      async () => {
        const step = await this.dataSource.transaction(async (manager) => {
          // The checkpoint first: on MariaDB it locks the notification row, so a worker taking
          // the notification over waits for this commit and then finds the lease extended.
          if (!(await this.checkpoint(notification.id, {}, manager))) throw new CheckpointRefused();
          const written = await write(manager);
          if (!(await this.checkpoint(notification.id, written.progress, manager))) {
            throw new CheckpointRefused();
          }
          return written;
        });
        Object.assign(notification, step.progress);
        return step.last;
      },
    );
    return end === 'done';
  }

  /** Each platform in turn, then the final status from their outcomes. */
  private async deliverThroughChannels(
    notification: Notification,
    pass: Pass,
    recipients: Recipients,
  ): Promise<void> {
    const checkpoint: DeliveryCheckpoint = (changes, manager) =>
      this.checkpoint(notification.id, changes, manager);
    const results = new Map<NotificationChannel['platform'], ChannelResult>();
    const reasons: string[] = [];
    for (const channel of this.channels) {
      const result = await channel.deliver(notification, pass, recipients, checkpoint);
      if (result === null) return;
      results.set(channel.platform, result);
      if (result.reason !== null)
        reasons.push(`${PLATFORM_NAMES[channel.platform]}: ${result.reason}`);
    }
    const apple = results.get('apple') ?? NOT_SENT;
    const google = results.get('google') ?? NOT_SENT;
    const status: NotificationStatus =
      apple.outcome === 'success'
        ? google.outcome === 'success'
          ? 'Published'
          : 'AppleSuccessGoogleFailed'
        : google.outcome === 'success'
          ? 'AppleFailedGoogleSuccess'
          : 'Failed';
    await this.finish(notification, status, reasons.length > 0 ? reasons.join('; ') : null, {
      appleOutcome: apple.outcome,
      appleNotificationSentCount: apple.sent,
      googleNotificationSentCount: google.sent,
      totalNotificationSentCount: apple.sent + google.sent,
    });
    this.logger.log(
      { notificationId: notification.id, status, appleSent: apple.sent, googleSent: google.sent },
      'Notification delivered',
    );
  }

  private async finish(
    notification: Notification,
    status: NotificationStatus,
    reason: string | null,
    extra: Partial<Notification> = {},
  ): Promise<void> {
    const publishedTime = new Date();
    // Read before the transaction: on SQLite a read outside it would wait for it to end.
    const confirmation = await this.delivery.confirmationOf({ ...notification, ...extra });
    // The final status and `notification.finished` commit together; a worker that lost the
    // lease writes neither (the one that took over finishes and announces it).
    await this.dataSource.transaction(async (manager) => {
      const held = await this.lease.finish(
        notification.id,
        { ...extra, status, failureReason: reason, publishedTime },
        manager,
      );
      if (!held) return;
      const finished = await manager.findOneByOrFail(Notification, { id: notification.id });
      await this.events.record(manager, {
        type: 'notification.finished',
        workspaceId: finished.workspaceId,
        time: publishedTime,
        passId: finished.passId,
        data: { ...toNotificationResponse(finished, confirmation) },
      });
    });
  }

  /** Saves progress and extends the lease, only while this worker still holds the notification. */
  private async checkpoint(
    id: string,
    changes: Partial<Notification>,
    manager?: EntityManager,
  ): Promise<boolean> {
    const held = await this.lease.checkpoint(id, changes, manager);
    if (!held) {
      this.logger.warn(
        { notificationId: id },
        'Lost the lease of a notification; another worker goes on',
      );
    }
    return held;
  }
}

/** Why a notification's audience cannot be evaluated, for its failure reason; null: not known. */
function unresolvable(error: unknown): string | null {
  if (error instanceof NotFoundError) {
    return 'The segment was deleted before the notification went out';
  }
  if (error instanceof InvalidInputError) {
    // The pass lost a face field the audience names since the notification was written.
    const problems = Object.entries(error.context ?? {}).map(([at, why]) => `${at} ${String(why)}`);
    return `The audience no longer fits the pass: ${problems.join('; ')}`;
  }
  return null;
}
