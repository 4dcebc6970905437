import type { EnvReader } from '../env-reader';

/**
 * Deleting finished work: rows finished more than `days` ago, at most `batchSize` per
 * statement and `maxRowsPerRun` per table and run, every `intervalMs` where workers run.
 */
export interface RetentionConfig {
  days: number;
  intervalMs: number;
  batchSize: number;
  maxRowsPerRun: number;
}

/** `RETENTION_*`. */
export function readRetentionConfig(read: EnvReader): RetentionConfig {
  return {
    days: read.int('RETENTION_DAYS', 30, 1, 3650),
    intervalMs: read.int('RETENTION_INTERVAL_MS', 60 * 60 * 1000, 1000, 7 * 24 * 3600 * 1000),
    batchSize: read.int('RETENTION_BATCH_SIZE', 1000, 1, 10_000),
    maxRowsPerRun: read.int('RETENTION_MAX_ROWS_PER_RUN', 100_000, 1, 10_000_000),
  };
}
