import { EntityRows, isUniqueViolation, newId, sqlDialect, type SqlDialect } from '@app/core';
import { RegistrationFanOut, type PushTarget } from '@app/wallet-a';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MAX_TARGETED_HOLDERS } from '../dto/notification.dto';
import { NotificationShard } from '../entities/notification-shard.entity';
import type { Notification } from '../entities/notification.entity';
import type { Recipients } from '../notification-target';

/**
 * Registrations read and pushed per batch: memory stays flat whatever the audience. The APNs
 * streams drain at the end of each batch, so batches are large (1,000 gave 59 % of a bare
 * client's push rate in bench:fanout, 5,000 gives 65-69 %).
 */
const BATCH_SIZE = 5000;

/**
 * A snapshot this small (as many as a notification's chosen holders may be) is read from its
 * holders' devices; a larger one by testing the pass's registrations in id order.
 */
const FEW_HOLDERS = MAX_TARGETED_HOLDERS;
/**
 * Push outcomes are written in groups this size, one group at a time while pushes go on: at most
 * twice this many (besides the pushes in flight) are re-pushed after a crash.
 */
const RECORD_EVERY = 100;
/** The columns of a delivery row, in the order `record` binds them. */
const DELIVERY_INSERT =
  'INSERT INTO notification_delivery ' +
  '(id, notification_id, registration_id, outcome, reason, created_time) VALUES ';
const DELIVERY_ROW = '(?, ?, ?, ?, ?, ?)';
const DELIVERY_COLUMNS = 6;
/** Shard rows written per INSERT (SQLite binds at most 32,766 values per statement). */
const SHARD_ROWS_PER_INSERT = 500;

/** A slice of the recipients in registration id order: after `afterId`, up to `upToId`. */
export interface ShardRange {
  /** null: from the first registration. */
  afterId: string | null;
  /** null: open-ended, every registration after `afterId`, those registered later included. */
  upToId: string | null;
}

/** The notification a WalletA fan-out pushes: its pass, where its deliveries are recorded. */
export type FanOutNotification = Pick<Notification, 'id' | 'passId' | 'attempts'>;

/** Where a shard's push starts and ends. */
export type FanOutShard = Pick<
  NotificationShard,
  'afterId' | 'upToId' | 'fanoutCursor' | 'attempts'
>;

/** Saves progress on the notification and extends its lease; false when it was lost. */
export type NotificationCheckpoint = (
  changes: Partial<Notification>,
  manager: EntityManager,
) => Promise<boolean>;

class LeaseLost extends Error {}

/**
 * Outcomes not yet written, as the bound values of their delivery rows (DELIVERY_COLUMNS per
 * row, `created_time` filled in when the group is written): no object per push, which a
 * million-device fan-out would otherwise allocate and keep until its group is written.
 */
type PendingValues = unknown[];

/**
 * Cuts the ids after `start` into ranges of `size` by keyset steps: `nthAfter(after, offset)`
 * returns the ids at positions `offset + 1` and `offset + 2` after `after` (fewer at the end).
 * Each step finds the `size`-th id (the range's end) and whether anything follows it; when
 * nothing does, the range becomes the last one, open-ended, so there is never an empty last
 * range, and an audience of at most `size` (or none) is one range. The ranges partition the ids
 * after `start` whatever was registered meanwhile: a device registered during the cut falls in
 * one of them.
 */
export async function cutRanges(
  nthAfter: (after: string | null, offset: number) => Promise<string[]>,
  start: string | null,
  size: number,
): Promise<ShardRange[]> {
  const ranges: ShardRange[] = [];
  let after = start;
  for (;;) {
    const [end, next] = await nthAfter(after, size - 1);
    if (next === undefined) {
      ranges.push({ afterId: after, upToId: null });
      return ranges;
    }
    ranges.push({ afterId: after, upToId: end });
    after = end;
  }
}

/**
 * WalletA's fan-out of one notification: the one filtered query over `wallet_a_registration`
 * that finds the devices of its recipients (the pass's devices, or those of the holders of its
 * snapshot), cut into
 * ranges, and each range pushed with every device's outcome recorded, so a resumed range skips
 * the devices already recorded.
 */
@Injectable()
export class WalletAFanOut {
  private readonly shardRows: EntityRows<NotificationShard>;
  /**
   * `wallet_a_registration r`, read along `ix_registration_pass`. Left to itself MariaDB plans a
   * `ref` on (pass_id, removed_time) and filters `r.id > ?` row by row, so every keyset step and
   * every batch reads the pass's registrations from the first one: quadratic in the audience. At
   * 1,000,000 devices the cut into shards took 16.8 s that way and 0.35 s along the index; the
   * batch reads 17.2 s against 4.4 s. A large snapshot's holders are read along it too: each
   * registration of the pass is then tested against the snapshot by its primary key, so the
   * steps stay ranges from their cursor.
   */
  private readonly registrations: string;
  /**
   * `wallet_a_registration r` as the planner reads it: for a snapshot of at most
   * {@link FEW_HOLDERS}, whose devices are found from its holders through `ix_registration_holder`
   * rather than by testing every registration of the pass (a welcome to one holder of a pass
   * with a million devices reads that holder's devices, not the million).
   */
  private readonly registrationsByHolder = 'wallet_a_registration r';
  private readonly dialect: SqlDialect;
  /** The INSERT of a full group of RECORD_EVERY deliveries, the usual size, made once. */
  private readonly fullGroupInsert =
    DELIVERY_INSERT + Array(RECORD_EVERY).fill(DELIVERY_ROW).join(', ');

  constructor(
    private readonly dataSource: DataSource,
    private readonly fanOutTo: RegistrationFanOut,
  ) {
    this.dialect = sqlDialect(dataSource);
    this.registrations = `wallet_a_registration r${this.dialect.forceIndex('ix_registration_pass')}`;
    this.shardRows = new EntityRows(dataSource, NotificationShard, 's');
  }

  /** Why pushes cannot be sent at all (no credentials), or null when they can. */
  unavailableReason(): string | null {
    return this.fanOutTo.unavailableReason();
  }

  /**
   * Cuts the notification's recipients into shards of `size` devices, once, and returns how many
   * (null: the lease was lost). The shard rows and the notification's `shardCount` commit with
   * its `checkpoint`, so a worker that lost the lease, or died on the way, commits nothing and
   * the next one cuts afresh; a cut that committed is not repeated (`shardCount` is set, and
   * `(notification_id, position)` is unique, so a second set could not commit either). The
   * boundaries are read before the transaction, which stays short: any boundaries partition the
   * ids after the start.
   */
  async cut(
    notification: FanOutNotification & Pick<Notification, 'workspaceId' | 'fanoutCursor'>,
    recipients: Recipients,
    size: number,
    checkpoint: NotificationCheckpoint,
  ): Promise<number | null> {
    // A fan-out an older worker began before shards resumes after its cursor.
    const ranges = await this.ranges(notification, recipients, notification.fanoutCursor, size);
    const now = new Date();
    const shards = ranges.map((range, position) =>
      Object.assign(new NotificationShard(), {
        ...range,
        id: newId(),
        workspaceId: notification.workspaceId,
        notificationId: notification.id,
        position,
        fanoutCursor: null,
        state: 'open',
        leaseUntil: null,
        leasedBy: null,
        attempts: 0,
        createdTime: now,
        updatedTime: now,
        createdBy: null,
        updatedBy: null,
      } satisfies Partial<NotificationShard>),
    );
    return this.dataSource
      .transaction(async (manager) => {
        // The checkpoint first: on MariaDB it locks the notification row, so a worker taking
        // the notification over waits for this commit and then finds the lease extended.
        if (!(await checkpoint({ shardCount: shards.length }, manager))) throw new LeaseLost();
        for (let from = 0; from < shards.length; from += SHARD_ROWS_PER_INSERT) {
          await this.shardRows.insert(manager, shards.slice(from, from + SHARD_ROWS_PER_INSERT));
        }
        return shards.length;
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return null;
        throw error;
      });
  }

  /** The recipients' devices after `start` (a registration id; null: all) in ranges of `size`. */
  ranges(
    notification: FanOutNotification,
    recipients: Recipients,
    start: string | null,
    size: number,
  ): Promise<ShardRange[]> {
    return cutRanges(
      async (after, offset) => {
        const { from, where, params } = this.devices(notification, recipients, after, null);
        const rows = await this.dataSource.query<{ id: string }[]>(
          `SELECT r.id AS id FROM ${from} WHERE ${where} ` +
            `ORDER BY r.id ASC LIMIT 2 OFFSET ${offset}`,
          params,
        );
        return rows.map((row) => row.id);
      },
      start,
      size,
    );
  }

  /**
   * Pushes every recipient of the shard's range once (from its cursor on), recording each
   * outcome; false when `checkpoint` says the shard was lost (another worker goes on).
   * The pipeline is kept full: the next batch is read while this one is pushed, and outcomes
   * are written while the next pushes go out (one insert at a time). The cursor only moves
   * once every outcome of the batch is written.
   */
  async push(
    notification: FanOutNotification,
    recipients: Recipients,
    shard: FanOutShard,
    checkpoint: (cursor: string) => Promise<boolean>,
  ): Promise<boolean> {
    // Deliveries in the range exist only if someone pushed it before: an earlier holder of the
    // shard, or of the notification when it was fanned out before shards (a takeover after an
    // upgrade). Otherwise the check per batch is skipped.
    const resumed = shard.attempts > 1 || notification.attempts > 1;
    const read = (cursor: string | null) =>
      this.readBatch(notification, recipients, cursor, shard, resumed);
    let next = read(shard.fanoutCursor ?? shard.afterId);

    for (;;) {
      const { batch, todo } = await next;
      if (batch.length === 0) break;
      const last = batch[batch.length - 1].id;
      next = batch.length < BATCH_SIZE ? Promise.resolve({ batch: [], todo: [] }) : read(last);
      // Awaited at the top of the next turn; until then a failure must not count as unhandled.
      next.catch(() => undefined);

      let pending: PendingValues = [];
      let recording: Promise<void> = Promise.resolve();
      const flush = async () => {
        // At most one insert in flight: at most 2 × RECORD_EVERY outcomes are unwritten.
        await recording;
        const values = pending;
        pending = [];
        recording = this.record(values);
        recording.catch(() => undefined);
      };
      await this.fanOutTo.push(todo, (registration, outcome) => {
        const reason: string | null =
          outcome.status === 'sent' ? null : outcome.reason.slice(0, 255);
        pending.push(newId(), notification.id, registration.id, outcome.status, reason, null);
        return pending.length >= RECORD_EVERY * DELIVERY_COLUMNS ? flush() : undefined;
      });
      await flush();
      await recording;

      if (!(await checkpoint(last))) return false;
      if (batch.length < BATCH_SIZE) break;
    }
    return true;
  }

  /**
   * The filter on `wallet_a_registration r` for the recipients' devices after `after` and up to
   * `upTo`: the pass's registered devices, or those of the snapshot's holders still Active (the
   * message went on theirs). The one definition of whom the fan-out reaches, for the cut and for
   * the push.
   */
  private devices(
    notification: FanOutNotification,
    recipients: Recipients,
    after: string | null,
    upTo: string | null,
  ): { from: string; where: string; params: unknown[] } {
    const where = ['r.pass_id = ?', 'r.removed_time IS NULL'];
    const params: unknown[] = [notification.passId];
    if (after !== null) {
      where.push('r.id > ?');
      params.push(after);
    }
    if (upTo !== null) {
      where.push('r.id <= ?');
      params.push(upTo);
    }
    if (recipients.kind === 'pass') {
      return { from: this.registrations, where: where.join(' AND '), params };
    }
    const few = recipients.size !== null && recipients.size <= FEW_HOLDERS;
    where.push(
      few
        ? 'r.holder_id IN (SELECT m.holder_id FROM audience_member m WHERE m.snapshot_id = ?)'
        : 'EXISTS (SELECT 1 FROM audience_member m WHERE m.snapshot_id = ? AND m.holder_id = r.holder_id)',
      "EXISTS (SELECT 1 FROM holder h WHERE h.id = r.holder_id AND h.status = 'Active')",
    );
    params.push(recipients.notificationId);
    return {
      from: few ? this.registrationsByHolder : this.registrations,
      where: where.join(' AND '),
      params,
    };
  }

  /**
   * The registrations of the range after `cursor`, and those of them not yet pushed (looked up
   * only when the range was `resumed`). Only the id and the token are read, in plain SQL: a
   * batch lives until its last push answers, long enough for V8 to move it to the old
   * generation, so whole entities (every column, dates parsed) were garbage the worker kept
   * collecting; the query builder's hydration cost more CPU than the pushes of the batch.
   */
  private async readBatch(
    notification: FanOutNotification,
    recipients: Recipients,
    cursor: string | null,
    shard: FanOutShard,
    resumed: boolean,
  ): Promise<{ batch: PushTarget[]; todo: PushTarget[] }> {
    const { from, where, params } = this.devices(notification, recipients, cursor, shard.upToId);
    const batch = await this.dataSource.query<PushTarget[]>(
      `SELECT r.id AS id, r.push_token AS pushToken FROM ${from} ` +
        `WHERE ${where} ORDER BY r.id ASC LIMIT ${BATCH_SIZE}`,
      params,
    );
    if (batch.length === 0 || !resumed) return { batch, todo: batch };
    const recorded = await this.dataSource.query<{ registration_id: string }[]>(
      'SELECT registration_id FROM notification_delivery WHERE notification_id = ? AND ' +
        `registration_id IN (${batch.map(() => '?').join(', ')})`,
      [notification.id, ...batch.map((registration) => registration.id)],
    );
    const done = new Set(recorded.map((row) => row.registration_id));
    return { batch, todo: batch.filter((registration) => !done.has(registration.id)) };
  }

  /**
   * Writes a group of outcomes in one INSERT. Hand-written rather than through EntityRows: it
   * runs once per RECORD_EVERY pushes of every fan-out, and binding the values straight from
   * the outcomes spares a copy of each row and a conversion per column.
   */
  private async record(values: PendingValues): Promise<void> {
    const rows = values.length / DELIVERY_COLUMNS;
    if (rows === 0) return;
    const createdTime = this.dialect.writeDate(new Date());
    for (let at = DELIVERY_COLUMNS - 1; at < values.length; at += DELIVERY_COLUMNS) {
      values[at] = createdTime;
    }
    const sql =
      rows === RECORD_EVERY
        ? this.fullGroupInsert
        : DELIVERY_INSERT + Array(rows).fill(DELIVERY_ROW).join(', ');
    try {
      await this.dataSource.query(sql, values);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another worker recorded some of them (lease taken over): keep the first record of each.
      for (let at = 0; at < values.length; at += DELIVERY_COLUMNS) {
        await this.dataSource
          .query(DELIVERY_INSERT + DELIVERY_ROW, values.slice(at, at + DELIVERY_COLUMNS))
          .catch((rowError: unknown) => {
            if (!isUniqueViolation(rowError)) throw rowError;
          });
      }
    }
  }
}
