import { NotFoundError, sqlDialect } from '@app/core';
import { Holder, Pass, PassesService } from '@app/passes';
import {
  DeviceFetch,
  percentilesOf,
  PushJob,
  Registration,
  type ConfirmationSeconds,
} from '@app/wallet-a';
import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { Notification } from '../entities/notification.entity';

/** `GET /wallet-pass/{id}/delivery`: where the pass's WalletA devices stand. */
export interface DeliverySummary {
  registered: number;
  upToDate: number;
  behind: number;
  lastPushTime: Date | null;
}

/** What a notification's pushes brought about: devices that fetched its version since. */
export interface NotificationConfirmation {
  appleConfirmedCount: number;
  appleConfirmationSeconds: ConfirmationSeconds | null;
}

const NOTHING_CONFIRMED: NotificationConfirmation = {
  appleConfirmedCount: 0,
  appleConfirmationSeconds: null,
};

/**
 * Did an update reach the phones? Apple's protocol lets a device say so in two
 * ways: it registers (holding the version current then, `held_*_version`), and it fetches the
 * pass after a push (200, or 304 because it had it), counted per version by
 * `FetchConfirmations`. A fetch carries no device id, so a serial number's devices are
 * up to date as far as the count of them that registered at, or fetched, its current version
 * goes, never beyond how many are registered (docs/decisions.md, "Delivery confirmation").
 */
@Injectable()
export class DeliveryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly passes: PassesService,
  ) {}

  async summary(workspaceId: string, passId: string, holderId?: string): Promise<DeliverySummary> {
    await this.passes.getEntity(workspaceId, passId);
    if (holderId !== undefined) await this.assertHolderOf(workspaceId, passId, holderId);
    const onlyHolder = <T extends object>(query: SelectQueryBuilder<T>, alias: string) =>
      holderId === undefined
        ? query
        : query.andWhere(`${alias}.holder_id = :holderId`, { holderId });

    const registered = await onlyHolder(
      this.dataSource
        .createQueryBuilder()
        .select('r.serial_number', 'serialNumber')
        .addSelect('COUNT(*)', 'registered')
        .addSelect(
          'SUM(CASE WHEN r.held_pass_version = p.version AND r.held_holder_version = COALESCE(h.version, 0) THEN 1 ELSE 0 END)',
          'held',
        )
        .from(Registration, 'r')
        .innerJoin(Pass, 'p', 'p.id = r.pass_id')
        .leftJoin(Holder, 'h', 'h.id = r.holder_id')
        .where('r.workspace_id = :workspaceId', { workspaceId })
        .andWhere('r.pass_id = :passId', { passId })
        .andWhere('r.removed_time IS NULL'),
      'r',
    )
      .groupBy('r.serial_number')
      .getRawMany<{ serialNumber: string; registered: number | string; held: number | string }>();

    const fetched = await onlyHolder(
      this.dataSource
        .createQueryBuilder()
        .select('f.serial_number', 'serialNumber')
        .addSelect('SUM(f.fetches)', 'fetched')
        .from(DeviceFetch, 'f')
        .innerJoin(Pass, 'p', 'p.id = f.pass_id')
        .leftJoin(Holder, 'h', 'h.id = f.holder_id')
        .where('f.workspace_id = :workspaceId', { workspaceId })
        .andWhere('f.pass_id = :passId', { passId })
        .andWhere('f.pass_version = p.version')
        .andWhere('f.holder_version = COALESCE(h.version, 0)'),
      'f',
    )
      .groupBy('f.serial_number')
      .getRawMany<{ serialNumber: string; fetched: number | string }>();
    const fetchedOf = new Map(fetched.map((row) => [row.serialNumber, Number(row.fetched)]));

    let total = 0;
    let upToDate = 0;
    for (const row of registered) {
      const devices = Number(row.registered);
      total += devices;
      upToDate += Math.min(devices, Number(row.held) + (fetchedOf.get(row.serialNumber) ?? 0));
    }
    return {
      registered: total,
      upToDate,
      behind: total - upToDate,
      lastPushTime: await this.lastPushTime(workspaceId, passId, holderId),
    };
  }

  /**
   * Devices that fetched a version of the notification's pass (of its holders', with
   * `holderIds`) made when it was sent or later, and how long after the version each did; at
   * most as many as APNs accepted pushes for.
   */
  async confirmationOf(notification: Notification): Promise<NotificationConfirmation> {
    const sent = notification.appleNotificationSentCount;
    if (notification.sentTime === null || sent === 0) return NOTHING_CONFIRMED;
    const query = this.dataSource
      .createQueryBuilder()
      .select('f.seconds_bucket', 'bucket')
      .addSelect('SUM(f.fetches)', 'fetches')
      .from(DeviceFetch, 'f')
      .where('f.pass_id = :passId', { passId: notification.passId })
      .andWhere('f.version_time >= :since', {
        since: sqlDialect(this.dataSource).writeDate(notification.sentTime),
      })
      .andWhere('f.workspace_id = :workspaceId', { workspaceId: notification.workspaceId });
    if (notification.holderIds !== null) {
      query.andWhere('f.holder_id IN (:...holderIds)', { holderIds: notification.holderIds });
    }
    const rows = await query
      .groupBy('f.seconds_bucket')
      .getRawMany<{ bucket: number | string; fetches: number | string }>();
    const buckets = new Map(rows.map((row) => [Number(row.bucket), Number(row.fetches)]));
    const fetches = [...buckets.values()].reduce((sum, count) => sum + count, 0);
    return {
      appleConfirmedCount: Math.min(sent, fetches),
      appleConfirmationSeconds: percentilesOf(buckets),
    };
  }

  /** The latest push to the pass's devices (the holder's): pass updates and notifications. */
  private async lastPushTime(
    workspaceId: string,
    passId: string,
    holderId: string | undefined,
  ): Promise<Date | null> {
    const dialect = sqlDialect(this.dataSource);
    const updates = this.dataSource
      .createQueryBuilder()
      .select('MAX(j.finished_time)', 'at')
      .from(PushJob, 'j')
      .where('j.workspace_id = :workspaceId', { workspaceId })
      .andWhere('j.pass_id = :passId', { passId })
      .andWhere('j.pushed_count > 0');
    if (holderId !== undefined) {
      // Pass-wide jobs and imports reach every holder they changed; a holder's own job, that one.
      updates.andWhere('(j.holder_id IS NULL OR j.holder_id = :holderId)', { holderId });
    }
    const notifications = this.dataSource
      .createQueryBuilder()
      .select('n.sent_time', 'at')
      .addSelect('n.holder_ids', 'holderIds')
      .from(Notification, 'n')
      .where('n.workspace_id = :workspaceId', { workspaceId })
      .andWhere('n.pass_id = :passId', { passId })
      .andWhere('n.apple_sent_count > 0')
      .orderBy('n.sent_time', 'DESC')
      .limit(holderId === undefined ? 1 : 100);
    const [update, sent] = await Promise.all([
      updates.getRawOne<{ at: Date | string | null }>(),
      notifications.getRawMany<{ at: Date | string; holderIds: string | null }>(),
    ]);
    const reached = sent.find(
      (row) =>
        holderId === undefined ||
        row.holderIds === null ||
        (JSON.parse(row.holderIds) as string[]).includes(holderId),
    );
    const times = [update?.at, reached?.at]
      .filter((at): at is Date | string => at !== null && at !== undefined)
      .map((at) => dialect.readDate(at).getTime());
    return times.length === 0 ? null : new Date(Math.max(...times));
  }

  private async assertHolderOf(workspaceId: string, passId: string, holderId: string) {
    const found = await this.dataSource
      .getRepository(Holder)
      .existsBy({ workspaceId, passId, id: holderId });
    if (!found) throw new NotFoundError('Holder', holderId);
  }
}
