import type { EnvReader } from '../env-reader';

/**
 * `leaseMs`: how long a claimed job (notification, pass update, WalletB sync) stays with the
 * worker that claimed it without a checkpoint; after that another worker takes it over.
 * `notificationShardSize`: how many WalletA devices one shard of a notification's fan-out
 * holds (the unit workers share a notification in). `bulkChangeBatchSize`: how many holders
 * one transaction of a bulk change changes (the unit a killed worker's successor redoes).
 * `snapshotBatchSize`: how many holders of an audience one transaction writes into a snapshot.
 * `batchQueryMs`: the query deadline of those batches on MariaDB/MySQL, which scan a share of the
 * pass's holders and may take longer than a request's query may (DB_QUERY_TIMEOUT_MS).
 */
export interface WorkerConfig {
  enabled: boolean;
  schedulerIntervalMs: number;
  leaseMs: number;
  notificationShardSize: number;
  bulkChangeBatchSize: number;
  snapshotBatchSize: number;
  batchQueryMs: number;
}

/**
 * Devices per shard of a notification's fan-out: about a second of pushes for one worker
 * (12,000/s in bench:fanout), so N workers share a large audience in steps of a second, while an
 * audience up to this size stays one shard (one row, one claim).
 */
export const DEFAULT_NOTIFICATION_SHARD_SIZE = 10_000;

/**
 * Holders per transaction of a bulk change: each is locked, written, indexed for audiences and
 * told to webhooks within it, so a batch stays well under a second on MariaDB while 100,000
 * holders take 200 transactions.
 */
export const DEFAULT_BULK_CHANGE_BATCH_SIZE = 500;

/**
 * Holders per batch of an audience's snapshot: ids only, so a batch writes 5,000 small rows and
 * 1,000,000 holders take 200 transactions, each well inside a lease.
 */
export const DEFAULT_SNAPSHOT_BATCH_SIZE = 5000;

/**
 * `WORKER_ENABLED`, `SCHEDULER_INTERVAL_MS`, `WORKER_LEASE_MS`, `NOTIFICATION_SHARD_SIZE`,
 * `BULK_CHANGE_BATCH_SIZE`, `SNAPSHOT_BATCH_SIZE`, `WORKER_QUERY_TIMEOUT_MS`.
 */
export function readWorkerConfig(read: EnvReader): WorkerConfig {
  return {
    enabled: read.bool('WORKER_ENABLED', true),
    schedulerIntervalMs: read.int('SCHEDULER_INTERVAL_MS', 5000, 100, 15 * 60 * 1000),
    leaseMs: read.int('WORKER_LEASE_MS', 60_000, 1000, 60 * 60 * 1000),
    notificationShardSize: read.int(
      'NOTIFICATION_SHARD_SIZE',
      DEFAULT_NOTIFICATION_SHARD_SIZE,
      1,
      1_000_000,
    ),
    bulkChangeBatchSize: read.int(
      'BULK_CHANGE_BATCH_SIZE',
      DEFAULT_BULK_CHANGE_BATCH_SIZE,
      1,
      5000,
    ),
    snapshotBatchSize: read.int('SNAPSHOT_BATCH_SIZE', DEFAULT_SNAPSHOT_BATCH_SIZE, 1, 10_000),
    // Below the default lease, which each batch extends when it starts.
    batchQueryMs: read.int('WORKER_QUERY_TIMEOUT_MS', 30_000, 100, 60 * 60 * 1000),
  };
}
