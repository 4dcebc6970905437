import { APP_CONFIG, newId, sqlDialect, type AppConfig } from '@app/core';
import type { Holder, Pass } from '@app/passes';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { bucketOf } from './confirmation-buckets';

/** How often counted fetches are added to the table. */
const FLUSH_INTERVAL_MS = 1000;
/** Rows a flush writes per statement. */
const ROWS_PER_STATEMENT = 500;
/** Distinct rows kept in memory at most (while the database is away, say); past it: dropped. */
const MAX_PENDING_ROWS = 100_000;

/** A row of `wallet_a_fetch`, by column. */
type PendingRow = {
  id: string;
  workspace_id: string;
  pass_id: string;
  holder_id: string | null;
  serial_number: string;
  pass_version: number;
  holder_version: number;
  version_time: Date | string;
  seconds_bucket: number;
  fetches: number;
};

const keyOf = (serialNumber: string, passVersion: number, holderVersion: number, bucket: number) =>
  `${serialNumber} ${passVersion} ${holderVersion} ${bucket}`;

/**
 * Counts the devices that fetch a pass from Apple's web service, by version and delay
 * (docs/decisions.md, "Delivery confirmation"). A fetch must not cost a write: under a fan-out
 * to a million devices every one of them fetches the same version within minutes, and a row updated per request would be
 * the hottest in the database. So fetches are counted in memory, per (serial number, version,
 * delay bucket), and added to `wallet_a_fetch` once a second in multi-row additive upserts,
 * which stay right with any number of API processes doing the same. A failed flush keeps its
 * counts for the next one, up to a bound; a stopping process flushes what it has.
 */
@Injectable()
export class FetchConfirmations implements OnApplicationShutdown {
  private readonly logger = new Logger(FetchConfirmations.name);
  private pending = new Map<string, PendingRow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The device that just fetched (200) or already held (304) this package holds its version. */
  record(
    pass: Pick<Pass, 'id' | 'workspaceId' | 'version' | 'updatedTime'>,
    holder: Pick<Holder, 'id' | 'serialNumber' | 'version' | 'updatedTime'> | null,
    now = new Date(),
  ): void {
    if (!this.config.walletA.fetchConfirmations) return;
    const versionTime = Math.max(pass.updatedTime.getTime(), holder?.updatedTime.getTime() ?? 0);
    const serialNumber = holder?.serialNumber ?? pass.id;
    const holderVersion = holder?.version ?? 0;
    const bucket = bucketOf(Math.max(0, (now.getTime() - versionTime) / 1000));
    const key = keyOf(serialNumber, pass.version, holderVersion, bucket);
    const row = this.pending.get(key);
    if (row !== undefined) {
      row.fetches += 1;
      return;
    }
    if (this.pending.size >= MAX_PENDING_ROWS) return;
    this.pending.set(key, {
      id: newId(),
      workspace_id: pass.workspaceId,
      pass_id: pass.id,
      holder_id: holder?.id ?? null,
      serial_number: serialNumber,
      pass_version: pass.version,
      holder_version: holderVersion,
      version_time: sqlDialect(this.dataSource).writeDate(new Date(versionTime)),
      seconds_bucket: bucket,
      fetches: 1,
    });
    this.timer ??= setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Adds what was counted to the table; one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    const dialect = sqlDialect(this.dataSource);
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
      const { sql, parameters } = dialect.insertAdding(
        'wallet_a_fetch',
        ['serial_number', 'pass_version', 'holder_version', 'seconds_bucket'],
        chunk,
        ['fetches'],
      );
      try {
        await this.dataSource.query(sql, parameters);
      } catch (error) {
        this.logger.warn(
          { err: error },
          'Could not record fetched versions; kept for the next try',
        );
        this.keep(rows.slice(start));
        return;
      }
    }
  }

  private keep(rows: readonly PendingRow[]): void {
    for (const row of rows) {
      const key = keyOf(
        row.serial_number,
        row.pass_version,
        row.holder_version,
        row.seconds_bucket,
      );
      const newer = this.pending.get(key);
      if (newer !== undefined) newer.fetches += row.fetches;
      else if (this.pending.size < MAX_PENDING_ROWS) this.pending.set(key, row);
    }
  }
}
