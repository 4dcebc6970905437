import { ConfigError, loadConfig } from './app-config';

/** Each section's own cases are beside its reader in `sections/`. */
describe('loadConfig', () => {
  it('runs with nothing set: SQLite under ./data, port 3000, worker on', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({
      type: 'sqlite',
      path: './data/wallet.sqlite',
      migrateOnStart: true,
      queryMs: 4000,
    });
    expect(config.worker).toEqual({
      enabled: true,
      schedulerIntervalMs: 5000,
      leaseMs: 60_000,
      notificationShardSize: 10_000,
      bulkChangeBatchSize: 500,
      snapshotBatchSize: 5000,
      batchQueryMs: 30_000,
    });
    expect(config.retention).toEqual({
      days: 30,
      intervalMs: 3_600_000,
      batchSize: 1000,
      maxRowsPerRun: 100_000,
    });
    expect(config.upload).toEqual({
      maxBytes: 10485760,
      buckets: ['pass-assets', 'campaign-assets'],
      quotaBytes: 1024 * 1024 * 1024,
    });
    expect(config.rateLimit.perMinute).toBe(600);
    expect(config.jwt.secretGenerated).toBe(true);
    expect(config.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(config.walletA.apnsUrl).toBe('https://api.push.apple.com');
  });

  it('derives the file-URL key from the JWT secret when FILES_SIGNING_SECRET is unset', () => {
    const secret = 'j'.repeat(32);
    const derived = loadConfig({ JWT_SECRET: secret }).storage.signingSecret;
    expect(derived).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ JWT_SECRET: secret }).storage.signingSecret).toBe(derived);
    expect(loadConfig({ JWT_SECRET: 'k'.repeat(32) }).storage.signingSecret).not.toBe(derived);
  });

  it('refuses a worker lease that two calls to Google could outlast, where WalletB is configured', () => {
    const walletB = { WALLET_B_SERVICE_ACCOUNT: './secrets/google.json' };
    expect(() => loadConfig({ ...walletB, WORKER_LEASE_MS: '40000' })).toThrow(
      /WORKER_LEASE_MS \(40000\) must be at least 4 × WALLET_B_TIMEOUT_MS \(10000\) \+ 1000/,
    );
    expect(loadConfig({ ...walletB, WORKER_LEASE_MS: '41000' }).worker.leaseMs).toBe(41_000);
    expect(
      loadConfig({
        ...walletB,
        WORKER_LEASE_MS: '5000',
        WALLET_B_TIMEOUT_MS: '1000',
        WEBHOOK_TIMEOUT_MS: '3000',
      }).walletB.callBudgetMs,
    ).toBe(2000);
    // Without a service account nothing calls Google.
    expect(loadConfig({ WORKER_LEASE_MS: '11000' }).worker.leaseMs).toBe(11_000);
  });

  it('refuses a worker lease that a webhook request could outlast', () => {
    expect(() => loadConfig({ WORKER_LEASE_MS: '10000' })).toThrow(
      /WORKER_LEASE_MS \(10000\) must be at least WEBHOOK_TIMEOUT_MS \(10000\) \+ 1000/,
    );
    expect(() => loadConfig({ WORKER_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '1500' })).toThrow(
      /two workers send one webhook delivery at once/,
    );
    expect(loadConfig({ WORKER_LEASE_MS: '11000' }).worker.leaseMs).toBe(11_000);
    expect(
      loadConfig({ WORKER_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000' }).webhooks.timeoutMs,
    ).toBe(1000);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be an integer'],
    [{ DB_TYPE: 'postgres' }, 'DB_TYPE must be one of sqlite, mysql'],
    [{ WORKER_ENABLED: 'maybe' }, 'WORKER_ENABLED must be true or false'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters long'],
    [{ STORAGE_DRIVER: 's3' }, 'S3_REGION is required when STORAGE_DRIVER=s3'],
    [{ RETENTION_DAYS: '0' }, 'RETENTION_DAYS must be an integer from 1 to 3650'],
    [{ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS must be an integer'],
  ])('refuses %p naming the variable, whatever section reads it', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: 'x', RATE_LIMIT_PER_MINUTE: '0' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(2);
    }
  });
});
