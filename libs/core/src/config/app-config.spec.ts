import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('runs with nothing set: SQLite under ./data, port 3000, worker on', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({
      type: 'sqlite',
      path: './data/wallet.sqlite',
      migrateOnStart: true,
    });
    expect(config.worker).toEqual({
      enabled: true,
      schedulerIntervalMs: 5000,
      leaseMs: 60_000,
      notificationShardSize: 10_000,
      bulkChangeBatchSize: 500,
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

  it('keeps webhooks to public https addresses unless told otherwise', () => {
    expect(loadConfig({}).webhooks).toEqual({
      allowHttp: false,
      allowPrivate: false,
      timeoutMs: 10_000,
      retryBaseMs: 10_000,
      retryForMs: 24 * 3600 * 1000,
    });
    const open = loadConfig({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_TIMEOUT_MS: '500',
    }).webhooks;
    expect(open).toMatchObject({ allowHttp: true, allowPrivate: true, timeoutMs: 500 });
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe', WEBHOOK_TIMEOUT_MS: '0' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE must be true or false[\s\S]*WEBHOOK_TIMEOUT_MS must be an integer/,
    );
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

  it('reads MySQL settings', () => {
    const config = loadConfig({
      DB_TYPE: 'mysql',
      DB_URL: 'mysql://u:p@db:3306/wallet',
      DB_POOL_SIZE: '25',
    });
    expect(config.database).toEqual({
      type: 'mysql',
      url: 'mysql://u:p@db:3306/wallet',
      migrateOnStart: true,
      poolSize: 25,
      timeouts: { connectMs: 3000, acquireMs: 3000, queryMs: 4000 },
    });
  });

  it('reads the MySQL timeouts', () => {
    const config = loadConfig({
      DB_TYPE: 'mysql',
      DB_URL: 'mysql://u:p@db:3306/wallet',
      DB_CONNECT_TIMEOUT_MS: '1500',
      DB_ACQUIRE_TIMEOUT_MS: '2000',
      DB_QUERY_TIMEOUT_MS: '60000',
    });
    expect(config.database.type === 'mysql' && config.database.timeouts).toEqual({
      connectMs: 1500,
      acquireMs: 2000,
      queryMs: 60_000,
    });
  });

  it('reads the retention settings', () => {
    const config = loadConfig({
      RETENTION_DAYS: '7',
      RETENTION_INTERVAL_MS: '600000',
      RETENTION_BATCH_SIZE: '50',
      RETENTION_MAX_ROWS_PER_RUN: '500',
    });
    expect(config.retention).toEqual({
      days: 7,
      intervalMs: 600_000,
      batchSize: 50,
      maxRowsPerRun: 500,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be an integer'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535'],
    [{ DB_TYPE: 'postgres' }, 'DB_TYPE must be one of sqlite, mysql'],
    [{ DB_TYPE: 'mysql' }, 'DB_URL is required when DB_TYPE=mysql'],
    [{ DB_TYPE: 'mysql', DB_URL: 'postgres://x' }, 'DB_URL must use mysql: or mariadb:'],
    [{ WORKER_ENABLED: 'maybe' }, 'WORKER_ENABLED must be true or false'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters long'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL must be a URL'],
    [
      { BOOTSTRAP_ADMIN_EMAIL: 'a@b.c' },
      'BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together',
    ],
    [{ STORAGE_DRIVER: 's3' }, 'S3_REGION is required when STORAGE_DRIVER=s3'],
    [{ UPLOAD_BUCKETS: ' , ' }, 'UPLOAD_BUCKETS must list at least one value'],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: '*.example.com' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: '*,https://app.example.com' }, 'CORS_ORIGINS: "*" must stand alone'],
    [
      { DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_QUERY_TIMEOUT_MS: '0' },
      'DB_QUERY_TIMEOUT_MS must be an integer from 100 to 3600000',
    ],
    [
      { DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_CONNECT_TIMEOUT_MS: '5s' },
      'DB_CONNECT_TIMEOUT_MS must be an integer',
    ],
    [
      { DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_ACQUIRE_TIMEOUT_MS: '50' },
      'DB_ACQUIRE_TIMEOUT_MS must be an integer from 100 to 120000',
    ],
    [{ RETENTION_DAYS: '0' }, 'RETENTION_DAYS must be an integer from 1 to 3650'],
    [{ RETENTION_INTERVAL_MS: '10' }, 'RETENTION_INTERVAL_MS must be an integer from 1000'],
    [{ RETENTION_BATCH_SIZE: '20000' }, 'RETENTION_BATCH_SIZE must be an integer from 1 to 10000'],
    [{ RETENTION_MAX_ROWS_PER_RUN: '-1' }, 'RETENTION_MAX_ROWS_PER_RUN must be an integer'],
  ])('refuses %p naming the variable', (env, message) => {
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

  it('hands out links to its own port when PUBLIC_BASE_URL is unset', () => {
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '3900' }).publicBaseUrl).toBe('http://localhost:3900');
    expect(
      loadConfig({ PORT: '3900', PUBLIC_BASE_URL: 'https://wallet.example.com' }).publicBaseUrl,
    ).toBe('https://wallet.example.com');
  });

  it('allows no cross-origin callers unless CORS_ORIGINS lists them', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
  });

  it('strips a trailing slash from base URLs', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://wallet.example.com/' }).publicBaseUrl).toBe(
      'https://wallet.example.com',
    );
  });

  it('limits failures and users by default, the user at twice the per-caller rate', () => {
    expect(loadConfig({}).rateLimit).toMatchObject({
      perMinute: 600,
      perUserPerMinute: 1200,
      authFailures: { perIp: 30, windowSeconds: 300 },
      login: { failuresPerIp: 20, failuresPerEmail: 5, windowSeconds: 900, backoffMaxSeconds: 60 },
    });
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '50' }).rateLimit.perUserPerMinute).toBe(100);
  });

  it('reads JWT_ISSUER and JWT_AUDIENCE only with JWT_PUBLIC_KEY', () => {
    const publicKey = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';
    expect(
      loadConfig({ JWT_PUBLIC_KEY: publicKey, JWT_ISSUER: 'https://idp', JWT_AUDIENCE: 'wps' }).jwt,
    ).toMatchObject({ issuer: 'https://idp', audience: 'wps' });
    expect(() => loadConfig({ JWT_ISSUER: 'https://idp' })).toThrow(/JWT_PUBLIC_KEY/);
  });
});
