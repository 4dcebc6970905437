import { passOfEvent, ReadReplica, ServiceEvents, sqlDialect, type RecordedEvent } from '@app/core';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Between, type EntityManager } from 'typeorm';
import { PassesService } from '../passes.service';
import { PassDailyStats } from './pass-daily-stats.entity';
import { daysOf, statsRange, utcDay } from './stats-range';

/** The counters of a day, as the API names them. */
export type PassDayCounters = Pick<
  PassDailyStats,
  | 'appleInstalls'
  | 'googleInstalls'
  | 'appleUninstalls'
  | 'googleUninstalls'
  | 'linkClicks'
  | 'notificationsSent'
>;

export interface PassStatsDayView extends PassDayCounters {
  date: string;
}

const COLUMNS: Record<keyof PassDayCounters, string> = {
  appleInstalls: 'apple_installs',
  googleInstalls: 'google_installs',
  appleUninstalls: 'apple_uninstalls',
  googleUninstalls: 'google_uninstalls',
  linkClicks: 'link_clicks',
  notificationsSent: 'notifications_sent',
};
const COUNTERS = Object.keys(COLUMNS) as (keyof PassDayCounters)[];

/**
 * What an event adds to its day, or null when it counts for nothing. Installs and uninstalls
 * are the moves of a wallet's active count (a device returning after removing the pass is an
 * install again); a notification adds what it sent, on the day it finished.
 */
export function countedAs(event: RecordedEvent): Partial<PassDayCounters> | null {
  switch (event.type) {
    case 'pass.installed':
      return event.data.platform === 'WalletA' ? { appleInstalls: 1 } : { googleInstalls: 1 };
    case 'pass.uninstalled':
      return event.data.platform === 'WalletA' ? { appleUninstalls: 1 } : { googleUninstalls: 1 };
    case 'link.clicked':
      return { linkClicks: 1 };
    case 'notification.finished': {
      const sent = event.data.totalNotificationSentCount;
      return typeof sent === 'number' && sent > 0 ? { notificationsSent: sent } : null;
    }
    default:
      return null;
  }
}

/**
 * Per-day statistics of a pass. Counted as events happen, in their own
 * transaction ({@link ServiceEvents}), because what they would otherwise be derived from does
 * not last: retention purges WalletB callbacks, WalletA keeps one registration per device.
 * Listens in every process that records events (API and worker).
 */
@Injectable()
export class PassStatsService implements OnModuleInit {
  constructor(
    private readonly replica: ReadReplica,
    private readonly passes: PassesService,
    private readonly events: ServiceEvents,
  ) {}

  onModuleInit(): void {
    this.events.listen((manager, events) => this.count(manager, events));
  }

  /**
   * One entry per day of the range, zeros included, oldest first. Read from a read replica when
   * DB_READ_URLS lists any: it may lag the latest events by the replica's delay (ReadReplica).
   */
  async daily(
    workspaceId: string,
    passId: string,
    query: { from?: string; to?: string },
    now = new Date(),
  ): Promise<PassStatsDayView[]> {
    const range = statsRange(query, now);
    // Deleted passes and other workspaces' passes are "not found", as GET /wallet-pass/{id}.
    await this.passes.getEntity(workspaceId, passId);
    const rows = await this.replica.read((manager) =>
      manager.find(PassDailyStats, {
        where: { workspaceId, passId, day: Between(range.from, range.to) },
      }),
    );
    const byDay = new Map(rows.map((row) => [row.day, row]));
    return daysOf(range).map((date) => {
      const row = byDay.get(date);
      const view: PassStatsDayView = { date, ...zeros() };
      if (row !== undefined) for (const counter of COUNTERS) view[counter] = row[counter];
      return view;
    });
  }

  /**
   * In the events' transaction: one atomic increment of each pass's row for each UTC day the
   * events fall on (a batch of registrations is one statement, not one per device).
   */
  private async count(manager: EntityManager, events: readonly RecordedEvent[]): Promise<void> {
    const rows = new Map<string, { key: Record<string, string>; counts: PassDayCounters }>();
    for (const event of events) {
      const added = countedAs(event);
      if (added === null) continue;
      const passId = passOfEvent(event);
      const day = utcDay(event.time);
      let row = rows.get(`${passId} ${day}`);
      if (row === undefined) {
        row = { key: { pass_id: passId, day, workspace_id: event.workspaceId }, counts: zeros() };
        rows.set(`${passId} ${day}`, row);
      }
      for (const counter of COUNTERS) row.counts[counter] += added[counter] ?? 0;
    }
    for (const { key, counts } of rows.values()) {
      const row: Record<string, unknown> = { ...key };
      for (const counter of COUNTERS) row[COLUMNS[counter]] = counts[counter];
      const { sql, parameters } = sqlDialect(manager.connection).insertAdding(
        'pass_daily_stats',
        ['pass_id', 'day'],
        row,
        COUNTERS.map((counter) => COLUMNS[counter]),
      );
      await manager.query(sql, parameters);
    }
  }
}

function zeros(): PassDayCounters {
  return {
    appleInstalls: 0,
    googleInstalls: 0,
    appleUninstalls: 0,
    googleUninstalls: 0,
    linkClicks: 0,
    notificationsSent: 0,
  };
}
