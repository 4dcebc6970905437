import {
  APP_CONFIG,
  EntityRows,
  isUniqueViolation,
  Lease,
  newId,
  newWorkerId,
  TickLoop,
  type AppConfig,
} from '@app/core';
import { HolderChanges, Pass } from '@app/passes';
import { Registration, RegistrationFanOut } from '@app/wallet-a';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { Brackets, DataSource, In, IsNull, LessThan, LessThanOrEqual } from 'typeorm';
import {
  NotificationDelivery,
  type DeliveryOutcome,
} from './entities/notification-delivery.entity';
import {
  Notification,
  type NotificationStatus,
  type PlatformOutcome,
} from './entities/notification.entity';
import { WALLET_B_MESSENGER, type WalletBMessenger } from './wallet-b-messenger';

/**
 * Registrations read and pushed per batch: memory stays flat whatever the audience. The APNs
 * streams drain at the end of each batch, so batches are large (1,000 gave 59 % of a bare
 * client's push rate in bench:fanout, 5,000 gives 65-69 %).
 */
const BATCH_SIZE = 5000;
/**
 * Push outcomes are written in groups this size, one group at a time while pushes go on: at most
 * twice this many (besides the pushes in flight) are re-pushed after a crash.
 */
const RECORD_EVERY = 100;
const NOTIFICATIONS_PER_TICK = 10;

const ACTIVE: NotificationStatus[] = ['Initializing', 'Processing', 'Finalizing'];

interface Pending {
  registrationId: string;
  outcome: DeliveryOutcome;
  reason: string | null;
}

/**
 * Delivers notifications. Any number of workers share one database: a notification is
 * claimed by compare-and-set under a lease, and each phase is idempotent and checkpointed, so
 * a worker that dies is replaced when its lease runs out and nothing is lost or sent twice
 * (beyond the pushes it had in flight):
 * - Initializing: the message becomes the pass's notification field and the pass version
 *   moves on (once: `preparedVersion`);
 * - Processing: every registered WalletA device is pushed, in batches, each outcome recorded
 *   per device (devices already recorded are skipped on resume);
 * - Finalizing: the message is added on WalletB's side, then the outcome of each platform
 *   gives the final status.
 */
@Injectable()
export class NotificationWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private readonly lease: Lease<Notification>;
  private readonly loop = new TickLoop('Notification delivery', () => this.tick(), this.logger);
  private stopped = false;

  private readonly registrationRows: EntityRows<Registration>;
  private readonly deliveryRows: EntityRows<NotificationDelivery>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOutTo: RegistrationFanOut,
    private readonly holderChanges: HolderChanges,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(WALLET_B_MESSENGER) private readonly walletB?: WalletBMessenger,
  ) {
    this.lease = new Lease(dataSource, {
      entity: Notification,
      workerId: newWorkerId(),
      leaseMs: config.worker.leaseMs,
      held: { status: In(ACTIVE) },
    });
    this.registrationRows = new EntityRows(dataSource, Registration, 'r');
    this.deliveryRows = new EntityRows(dataSource, NotificationDelivery, 'd');
  }

  onApplicationBootstrap(): void {
    if (this.config.worker.enabled) this.loop.start(this.config.worker.schedulerIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /** Starts delivery now (in a process that runs the worker), e.g. after a create. */
  kick(): void {
    this.loop.kick();
  }

  /** Claims due notifications and delivers them; returns how many it took. */
  async tick(): Promise<number> {
    let delivered = 0;
    while (delivered < NOTIFICATIONS_PER_TICK && !this.stopped) {
      const notification = await this.claimNext();
      if (notification === null) break;
      await this.deliver(notification);
      delivered += 1;
    }
    if (delivered === NOTIFICATIONS_PER_TICK) this.loop.requestAnother();
    else await this.wakeForNextScheduled();
    return delivered;
  }

  /**
   * Polling alone would send a scheduled notification up to one interval late; a timer set
   * for the next scheduled time (when it falls within the interval) sends it on time.
   */
  private async wakeForNextScheduled(): Promise<void> {
    if (this.stopped || !this.config.worker.enabled) return;
    const next = await this.dataSource
      .getRepository(Notification)
      .createQueryBuilder('n')
      .select('MIN(n.scheduled_time)', 'at')
      .where("n.status = 'Scheduled'")
      .getRawOne<{ at: Date | string | null }>();
    if (next?.at === null || next?.at === undefined) return;
    const at = next.at instanceof Date ? next.at : new Date(`${next.at.replace(' ', 'T')}Z`);
    const wait = at.getTime() - Date.now();
    if (wait <= this.config.worker.schedulerIntervalMs) this.loop.wakeAfter(wait + 5);
  }

  private async claimNext(): Promise<Notification | null> {
    const repository = this.dataSource.getRepository(Notification);
    const now = new Date();
    const due = await repository
      .createQueryBuilder('n')
      .where(
        new Brackets((where) =>
          where
            .where("n.status = 'Scheduled' AND n.scheduled_time <= :now", { now })
            .orWhere(
              'n.status IN (:...active) AND (n.lease_until IS NULL OR n.lease_until < :now)',
              {
                active: ACTIVE,
                now,
              },
            ),
        ),
      )
      .orderBy('n.id', 'ASC')
      .take(NOTIFICATIONS_PER_TICK)
      .getMany();

    for (const candidate of due) {
      // The same condition that made it due, re-checked in the update: one worker wins.
      const claimed =
        candidate.status === 'Scheduled'
          ? await this.lease.claim(
              candidate,
              [{ id: candidate.id, status: 'Scheduled', scheduledTime: LessThanOrEqual(now) }],
              { status: 'Initializing' },
            )
          : await this.lease.claim(candidate, [
              { id: candidate.id, status: candidate.status, leaseUntil: IsNull() },
              { id: candidate.id, status: candidate.status, leaseUntil: LessThan(now) },
            ]);
      if (claimed !== null) return claimed;
    }
    return null;
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
    if (notification.preparedVersion === null && !(await this.prepare(notification, pass))) return;
    if (notification.status !== 'Finalizing' && !(await this.fanOut(notification))) return;
    await this.finalize(notification, pass);
  }

  /** Puts the message on the pass (its WalletA notification field) and moves the version on. */
  private async prepare(notification: Notification, pass: Pass): Promise<boolean> {
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
        if (locked === null) throw new LeaseLost();
        const held = await this.lease.checkpoint(
          notification.id,
          { preparedVersion: locked.version, status: 'Processing', sentTime: now },
          changes.manager,
        );
        if (!held) throw new LeaseLost();
        return locked.version;
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
   * Pushes every registered device once, recording each outcome; false when the lease was lost.
   * The pipeline is kept full: the next batch is read while this one is pushed, and outcomes
   * are written while the next pushes go out (one insert at a time). The cursor only moves
   * once every outcome of the batch is written.
   */
  private async fanOut(notification: Notification): Promise<boolean> {
    let cursor = notification.fanoutCursor;
    let next = this.readBatch(notification, cursor);

    for (;;) {
      const { batch, todo } = await next;
      if (batch.length === 0) break;
      const last = batch[batch.length - 1].id;
      next =
        batch.length < BATCH_SIZE
          ? Promise.resolve({ batch: [], todo: [] })
          : this.readBatch(notification, last);
      // Awaited at the top of the next turn; until then a failure must not count as unhandled.
      next.catch(() => undefined);

      let pending: Pending[] = [];
      let recording: Promise<void> = Promise.resolve();
      const flush = async () => {
        // At most one insert in flight: at most 2 × RECORD_EVERY outcomes are unwritten.
        await recording;
        const rows = pending;
        pending = [];
        recording = this.record(notification.id, rows);
        recording.catch(() => undefined);
      };
      await this.fanOutTo.push(todo, async (registration, outcome) => {
        pending.push({
          registrationId: registration.id,
          outcome: outcome.status,
          reason: outcome.status === 'sent' ? null : outcome.reason.slice(0, 255),
        });
        if (pending.length >= RECORD_EVERY) await flush();
      });
      await flush();
      await recording;

      cursor = last;
      if (!(await this.checkpoint(notification.id, { fanoutCursor: cursor }))) return false;
      notification.fanoutCursor = cursor;
      if (batch.length < BATCH_SIZE) break;
    }
    return this.checkpoint(notification.id, { status: 'Finalizing' }).then((held) => {
      if (held) notification.status = 'Finalizing';
      return held;
    });
  }

  /**
   * The registrations after `cursor`, and those of them not yet pushed: only a notification a
   * worker held before (attempts > 0) can have deliveries recorded beyond its cursor. Plain SQL
   * (EntityRows): the query builder's entity hydration and its naming of a 5,000-value IN list
   * cost more CPU than the pushes of the batch.
   */
  private async readBatch(
    notification: Notification,
    cursor: string | null,
  ): Promise<{ batch: Registration[]; todo: Registration[] }> {
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT ${this.registrationRows.select} FROM wallet_a_registration r ` +
        `WHERE r.pass_id = ? AND r.removed_time IS NULL${cursor ? ' AND r.id > ?' : ''} ` +
        `ORDER BY r.id ASC LIMIT ${BATCH_SIZE}`,
      cursor ? [notification.passId, cursor] : [notification.passId],
    );
    const batch = rows.map((row) => this.registrationRows.read(row));
    if (batch.length === 0 || notification.attempts === 0) return { batch, todo: batch };
    const recorded = await this.dataSource.query<{ registration_id: string }[]>(
      'SELECT registration_id FROM notification_delivery WHERE notification_id = ? AND ' +
        `registration_id IN (${batch.map(() => '?').join(', ')})`,
      [notification.id, ...batch.map((registration) => registration.id)],
    );
    const done = new Set(recorded.map((row) => row.registration_id));
    return { batch, todo: batch.filter((registration) => !done.has(registration.id)) };
  }

  private async record(notificationId: string, rows: Pending[]): Promise<void> {
    if (rows.length === 0) return;
    const createdTime = new Date();
    const values = rows.map((row) => ({ id: newId(), notificationId, createdTime, ...row }));
    try {
      await this.deliveryRows.insert(this.dataSource, values);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another worker recorded some of them (lease taken over): keep the first record of each.
      for (const value of values) {
        await this.dataSource
          .getRepository(NotificationDelivery)
          .insert(value)
          .catch((rowError: unknown) => {
            if (!isUniqueViolation(rowError)) throw rowError;
          });
      }
    }
  }

  private async finalize(notification: Notification, pass: Pass): Promise<void> {
    const deliveries = this.dataSource.getRepository(NotificationDelivery);
    const counts = await deliveries
      .createQueryBuilder('d')
      .select('d.outcome', 'outcome')
      .addSelect('COUNT(*)', 'total')
      .where('d.notification_id = :id', { id: notification.id })
      .groupBy('d.outcome')
      .getRawMany<{ outcome: DeliveryOutcome; total: string | number }>();
    const count = (outcome: DeliveryOutcome) =>
      Number(counts.find((c) => c.outcome === outcome)?.total ?? 0);
    const appleSent = count('sent');
    const appleFailed = count('failed');

    const reasons: string[] = [];
    const unavailable = this.fanOutTo.unavailableReason();
    let appleOutcome: PlatformOutcome = 'success';
    if (unavailable !== null) {
      appleOutcome = 'failed';
      reasons.push(`WalletA: ${unavailable}`);
    } else if (appleFailed > 0 && appleSent === 0) {
      appleOutcome = 'failed';
      reasons.push(`WalletA: APNs accepted none of ${appleFailed} pushes`);
    }

    let googleOutcome: PlatformOutcome = notification.googleOutcome ?? 'failed';
    let googleSent = notification.googleNotificationSentCount;
    if (notification.googleOutcome === null) {
      const result = this.walletB
        ? await this.walletB.sendMessage(pass, {
            id: notification.id,
            header: pass.notificationHeader ?? pass.passName,
            body: notification.notificationMessage ?? '',
          })
        : ({ status: 'failed', reason: 'WalletB is not set up in this process' } as const);
      googleOutcome = result.status === 'sent' ? 'success' : 'failed';
      googleSent = result.status === 'sent' ? result.recipients : 0;
      if (result.status === 'failed') reasons.push(`WalletB: ${result.reason}`);
      if (
        !(await this.checkpoint(notification.id, {
          googleOutcome,
          googleNotificationSentCount: googleSent,
        }))
      )
        return;
    }

    const status: NotificationStatus =
      appleOutcome === 'success'
        ? googleOutcome === 'success'
          ? 'Published'
          : 'AppleSuccessGoogleFailed'
        : googleOutcome === 'success'
          ? 'AppleFailedGoogleSuccess'
          : 'Failed';
    await this.finish(notification, status, reasons.length > 0 ? reasons.join('; ') : null, {
      appleOutcome,
      appleNotificationSentCount: appleSent,
      googleNotificationSentCount: googleSent,
      totalNotificationSentCount: appleSent + googleSent,
    });
    this.logger.log(
      { notificationId: notification.id, status, appleSent, appleFailed, googleSent },
      'Notification delivered',
    );
  }

  private async finish(
    notification: Notification,
    status: NotificationStatus,
    reason: string | null,
    extra: Partial<Notification> = {},
  ): Promise<void> {
    await this.lease.finish(notification.id, {
      ...extra,
      status,
      failureReason: reason,
      publishedTime: new Date(),
    });
  }

  /** Saves progress and extends the lease, only while this worker still holds the notification. */
  private async checkpoint(id: string, changes: Partial<Notification>): Promise<boolean> {
    const held = await this.lease.checkpoint(id, changes);
    if (!held) {
      this.logger.warn(
        { notificationId: id },
        'Lost the lease of a notification; another worker goes on',
      );
    }
    return held;
  }
}

class LeaseLost extends Error {}
