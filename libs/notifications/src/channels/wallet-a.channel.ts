import { EntityRows, isUniqueViolation, newId } from '@app/core';
import { HolderChanges, type Pass } from '@app/passes';
import { Registration, RegistrationFanOut } from '@app/wallet-a';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  NotificationDelivery,
  type DeliveryOutcome,
} from '../entities/notification-delivery.entity';
import type { Notification } from '../entities/notification.entity';
import type {
  ChannelResult,
  DeliveryCheckpoint,
  NotificationChannel,
} from './notification-channel';

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

interface Pending {
  registrationId: string;
  outcome: DeliveryOutcome;
  reason: string | null;
}

class LeaseLost extends Error {}

/**
 * WalletA: the message becomes the pass's notification field and the pass version moves on
 * (once: `preparedVersion`, status Initializing → Processing); then every registered device is
 * pushed, in batches, each outcome recorded per device so that devices already recorded are
 * skipped on resume (Processing → Finalizing). The outcome counts the recorded deliveries.
 */
@Injectable()
export class WalletANotificationChannel implements NotificationChannel {
  readonly platform = 'apple';
  private readonly registrationRows: EntityRows<Registration>;
  private readonly deliveryRows: EntityRows<NotificationDelivery>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOutTo: RegistrationFanOut,
    private readonly holderChanges: HolderChanges,
  ) {
    this.registrationRows = new EntityRows(dataSource, Registration, 'r');
    this.deliveryRows = new EntityRows(dataSource, NotificationDelivery, 'd');
  }

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
    if (notification.status !== 'Finalizing' && !(await this.fanOut(notification, checkpoint))) {
      return null;
    }
    return this.outcome(notification);
  }

  /** Puts the message on the pass (its WalletA notification field) and moves the version on. */
  private async prepare(
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
        if (locked === null) throw new LeaseLost();
        const held = await checkpoint(
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
  private async fanOut(
    notification: Notification,
    checkpoint: DeliveryCheckpoint,
  ): Promise<boolean> {
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
      if (!(await checkpoint({ fanoutCursor: cursor }))) return false;
      notification.fanoutCursor = cursor;
      if (batch.length < BATCH_SIZE) break;
    }
    return checkpoint({ status: 'Finalizing' }).then((held) => {
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

    const unavailable = this.fanOutTo.unavailableReason();
    if (unavailable !== null) return { outcome: 'failed', sent, reason: unavailable };
    if (failed > 0 && sent === 0) {
      return { outcome: 'failed', sent, reason: `APNs accepted none of ${failed} pushes` };
    }
    return { outcome: 'success', sent, reason: null };
  }
}
