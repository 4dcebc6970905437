import { Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { sqlDialect } from '../database/dialect';
import { WorkerScheduler, type WorkerHandle, type PolledWorker } from '../worker/worker-scheduler';

/**
 * Which rows of one table are no longer needed. The module that owns the table registers it
 * (`RetentionWorker.register`), so the states that mean "finished" stay with the code that
 * sets them.
 */
export interface RetentionRule {
  table: string;
  /**
   * The primary key column, by which the rows found are deleted; or its columns, for a table
   * whose key is several (`audience_member`: snapshot and holder).
   */
  key: string | readonly string[];
  /**
   * SQL condition on the table (named by its table name, no alias) and its parameters. `cutoff`
   * is now minus RETENTION_DAYS; both are raw date parameters of the dialect in use.
   */
  expired(times: { now: Date | string; cutoff: Date | string }): {
    where: string;
    parameters: unknown[];
  };
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Deletes finished work older than RETENTION_DAYS, every RETENTION_INTERVAL_MS where workers
 * run. Per table: find up to RETENTION_BATCH_SIZE keys, delete those by primary key, repeat
 * until none are left or RETENTION_MAX_ROWS_PER_RUN were deleted (the rest waits for the next
 * run), so no statement holds locks on more than one batch and the tables stay usable.
 *
 * Finding, then deleting by key is the same SQL on both dialects (MariaDB has DELETE ... LIMIT,
 * SQLite does not without a compile option), and a delete by primary key locks only those rows.
 * Several processes may run it at once: they may find the same keys, and the second delete of
 * a row deletes nothing. The rows a rule finds never become unfinished again, so a row found
 * by one statement is still deletable at the next.
 */
@Injectable()
export class RetentionWorker implements PolledWorker {
  readonly name = 'retention';
  readonly intervalMs: number;
  private readonly logger = new Logger('Retention');
  private readonly rules: RetentionRule[] = [];
  private readonly handle: WorkerHandle;

  constructor(
    private readonly dataSource: DataSource,
    scheduler: WorkerScheduler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.intervalMs = config.retention.intervalMs;
    this.handle = scheduler.register(this);
  }

  register(rule: RetentionRule): void {
    this.rules.push(rule);
  }

  /** One run over every table; returns the rows deleted per table. */
  async tick(): Promise<Record<string, number>> {
    const { days, batchSize, maxRowsPerRun } = this.config.retention;
    const dialect = sqlDialect(this.dataSource);
    const now = new Date();
    const times = {
      now: dialect.writeDate(now),
      cutoff: dialect.writeDate(new Date(now.getTime() - days * DAY_MS)),
    };
    const deleted: Record<string, number> = {};
    for (const rule of this.rules) {
      const { where, parameters } = rule.expired(times);
      const key = keyOf(rule);
      let count = 0;
      await this.handle.drain(
        async () => {
          const limit = Math.min(batchSize, maxRowsPerRun - count);
          if (limit <= 0) return null;
          const rows = await this.dataSource.query<Record<string, unknown>[]>(
            `SELECT ${key.select} FROM ${rule.table} WHERE ${where} LIMIT ${limit}`,
            parameters,
          );
          return rows.length === 0 ? null : rows;
        },
        async (rows) => {
          const { sql, values } = key.delete(rows);
          await this.dataSource.query(`DELETE FROM ${rule.table} WHERE ${sql}`, values);
          count += rows.length;
        },
        Math.ceil(maxRowsPerRun / batchSize),
      );
      deleted[rule.table] = count;
      if (count > 0) this.logger.log({ table: rule.table, deleted: count }, 'Retention');
    }
    return deleted;
  }
}

/**
 * How a rule's rows are found and deleted by key: `k IN (…)` for one column, as ever; for
 * several, one `(a = ? AND b = ?)` per row joined by OR, which both databases read as lookups
 * of the primary key (a row-value `IN` is not a range on every MariaDB).
 */
function keyOf(rule: RetentionRule): {
  select: string;
  delete(rows: Record<string, unknown>[]): { sql: string; values: unknown[] };
} {
  if (typeof rule.key === 'string') {
    const column = rule.key;
    return {
      select: `${column} AS k`,
      delete: (rows) => ({
        sql: `${column} IN (${rows.map(() => '?').join(', ')})`,
        values: rows.map((row) => row.k),
      }),
    };
  }
  const columns = rule.key;
  const match = `(${columns.map((column) => `${column} = ?`).join(' AND ')})`;
  return {
    select: columns.map((column, index) => `${column} AS k${index}`).join(', '),
    delete: (rows) => ({
      sql: rows.map(() => match).join(' OR '),
      values: rows.flatMap((row) => columns.map((_column, index) => row[`k${index}`])),
    }),
  };
}

/** The retention worker, once for the application; modules register their tables with it. */
@Global()
@Module({ providers: [RetentionWorker], exports: [RetentionWorker] })
export class RetentionModule {}
