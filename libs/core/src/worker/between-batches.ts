import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * A turn of the event loop between two batches of a worker's long job. On SQLite every statement
 * is synchronous, so without it a job of many batches would hold up the requests and timers of
 * its process until its last batch.
 */
export function betweenBatches(): Promise<void> {
  return nextTurn();
}
