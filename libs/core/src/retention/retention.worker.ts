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
  /** The primary key column, by which the rows found are deleted. */
  key: string;
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
      let count = 0;
      await this.handle.drain(
        async () => {
          const limit = Math.min(batchSize, maxRowsPerRun - count);
          if (limit <= 0) return null;
          const rows = await this.dataSource.query<{ k: string }[]>(
            `SELECT ${rule.key} AS k FROM ${rule.table} WHERE ${where} LIMIT ${limit}`,
            parameters,
          );
          return rows.length === 0 ? null : rows.map((row) => row.k);
        },
        async (keys) => {
          await this.dataSource.query(
            `DELETE FROM ${rule.table} WHERE ${rule.key} IN (${keys.map(() => '?').join(', ')})`,
            keys,
          );
          count += keys.length;
        },
        Math.ceil(maxRowsPerRun / batchSize),
      );
      deleted[rule.table] = count;
      if (count > 0) this.logger.log({ table: rule.table, deleted: count }, 'Retention');
    }
    return deleted;
  }
}

/** The retention worker, once for the application; modules register their tables with it. */
@Global()
@Module({ providers: [RetentionWorker], exports: [RetentionWorker] })
export class RetentionModule {}
