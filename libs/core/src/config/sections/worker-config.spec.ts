import { readSection } from '../env-reader';
import { readWorkerConfig } from './worker-config';

describe('readWorkerConfig', () => {
  it('runs workers by default, polling every 5 s, with a minute of lease', () => {
    expect(readSection({}, readWorkerConfig).value).toEqual({
      enabled: true,
      schedulerIntervalMs: 5000,
      leaseMs: 60_000,
      notificationShardSize: 10_000,
      bulkChangeBatchSize: 500,
      snapshotBatchSize: 5000,
      batchQueryMs: 30_000,
    });
    expect(readSection({ WORKER_ENABLED: 'false' }, readWorkerConfig).value.enabled).toBe(false);
  });

  it.each([
    [{ WORKER_ENABLED: 'maybe' }, 'WORKER_ENABLED must be true or false'],
    [{ WORKER_LEASE_MS: '10' }, 'WORKER_LEASE_MS must be an integer from 1000'],
    [{ NOTIFICATION_SHARD_SIZE: '0' }, 'NOTIFICATION_SHARD_SIZE must be an integer from 1'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readWorkerConfig).problems).toEqual([expect.stringContaining(message)]);
  });
});
