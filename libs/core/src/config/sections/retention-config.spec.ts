import { readSection } from '../env-reader';
import { readRetentionConfig } from './retention-config';

describe('readRetentionConfig', () => {
  it('reads the retention settings', () => {
    const { value, problems } = readSection(
      {
        RETENTION_DAYS: '7',
        RETENTION_INTERVAL_MS: '600000',
        RETENTION_BATCH_SIZE: '50',
        RETENTION_MAX_ROWS_PER_RUN: '500',
      },
      readRetentionConfig,
    );
    expect(problems).toEqual([]);
    expect(value).toEqual({ days: 7, intervalMs: 600_000, batchSize: 50, maxRowsPerRun: 500 });
  });

  it.each([
    [{ RETENTION_DAYS: '0' }, 'RETENTION_DAYS must be an integer from 1 to 3650'],
    [{ RETENTION_INTERVAL_MS: '10' }, 'RETENTION_INTERVAL_MS must be an integer from 1000'],
    [{ RETENTION_BATCH_SIZE: '20000' }, 'RETENTION_BATCH_SIZE must be an integer from 1 to 10000'],
    [{ RETENTION_MAX_ROWS_PER_RUN: '-1' }, 'RETENTION_MAX_ROWS_PER_RUN must be an integer'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readRetentionConfig).problems).toEqual([
      expect.stringContaining(message),
    ]);
  });
});
