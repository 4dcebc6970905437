import { withDatabaseTimeouts } from '../database/mysql-deadlines';
import { betweenBatches } from './between-batches';

/**
 * Thrown by a batch of {@link checkpointedBatches} when its checkpoint was refused (the worker
 * lost its lease): the batch's transaction rolls back and the loop stops.
 */
export class CheckpointRefused extends Error {
  constructor() {
    super('The checkpoint was refused: another worker holds the job');
  }
}

/**
 * How a {@link checkpointedBatches} loop ended: after its last batch committed, before a batch
 * because the process is shutting down, or on a refused checkpoint.
 */
export type CheckpointedBatchesEnd = 'done' | 'stopped' | 'lost';

export interface CheckpointedBatchesOptions {
  /** The query deadline of each batch (the worker's, WORKER_QUERY_TIMEOUT_MS), not a request's. */
  queryMs: number;
  /** Asked before each batch; true stops the loop (the process is shutting down). */
  stopping?: () => boolean;
}

/**
 * A worker's long job as a series of short ones: `batch` reads its cursor, does one batch in one
 * transaction that also writes the cursor it reached (its checkpoint, committed only while the
 * worker holds the job), keeps that progress, and says whether it was the last. A job of any
 * size is then many transactions that each fit the query deadline, and a worker that dies is
 * replaced by one that goes on after the last batch committed. A batch throws
 * {@link CheckpointRefused} when its checkpoint is refused; any other error ends the loop with it.
 * The event loop gets a turn between batches ({@link betweenBatches}).
 */
export async function checkpointedBatches(
  options: CheckpointedBatchesOptions,
  batch: () => Promise<boolean>,
): Promise<CheckpointedBatchesEnd> {
  for (;;) {
    if (options.stopping?.() === true) return 'stopped';
    let last: boolean;
    try {
      last = await withDatabaseTimeouts({ queryMs: options.queryMs }, batch);
    } catch (error) {
      if (error instanceof CheckpointRefused) return 'lost';
      throw error;
    }
    if (last) return 'done';
    await betweenBatches();
  }
}
