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
    expect(config.worker).toEqual({ enabled: true, schedulerIntervalMs: 5000, leaseMs: 60_000 });
    expect(config.upload).toEqual({
      maxBytes: 10485760,
      buckets: ['pass-assets', 'campaign-assets'],
    });
    expect(config.rateLimit.perMinute).toBe(600);
    expect(config.jwt.secretGenerated).toBe(true);
    expect(config.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(config.walletA.apnsUrl).toBe('https://api.push.apple.com');
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

  it('strips a trailing slash from base URLs', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://wallet.example.com/' }).publicBaseUrl).toBe(
      'https://wallet.example.com',
    );
  });
});
