import { readSection } from '../env-reader';
import { readDatabaseConfig } from './database-config';

describe('readDatabaseConfig', () => {
  it('reads MySQL settings', () => {
    const { value, problems } = readSection(
      { DB_TYPE: 'mysql', DB_URL: 'mysql://u:p@db:3306/wallet', DB_POOL_SIZE: '25' },
      readDatabaseConfig,
    );
    expect(problems).toEqual([]);
    expect(value).toEqual({
      type: 'mysql',
      url: 'mysql://u:p@db:3306/wallet',
      migrateOnStart: true,
      readUrls: [],
      poolSize: 25,
      timeouts: { connectMs: 3000, acquireMs: 3000, queryMs: 4000 },
    });
  });

  it('reads the read replicas, each a URL of its own', () => {
    const { value, problems } = readSection(
      {
        DB_TYPE: 'mysql',
        DB_URL: 'mysql://u:p@db:3306/wallet',
        DB_READ_URLS: 'mysql://r:p@replica-1:3306/wallet, mariadb://r:p@replica-2/wallet',
      },
      readDatabaseConfig,
    );
    expect(problems).toEqual([]);
    expect(value.type === 'mysql' && value.readUrls).toEqual([
      'mysql://r:p@replica-1:3306/wallet',
      'mariadb://r:p@replica-2/wallet',
    ]);
  });

  it('reads the MySQL timeouts', () => {
    const { value } = readSection(
      {
        DB_TYPE: 'mysql',
        DB_URL: 'mysql://u:p@db:3306/wallet',
        DB_CONNECT_TIMEOUT_MS: '1500',
        DB_ACQUIRE_TIMEOUT_MS: '2000',
        DB_QUERY_TIMEOUT_MS: '60000',
      },
      readDatabaseConfig,
    );
    expect(value.type === 'mysql' && value.timeouts).toEqual({
      connectMs: 1500,
      acquireMs: 2000,
      queryMs: 60_000,
    });
  });

  it.each([
    [{ DB_TYPE: 'postgres' }, 'DB_TYPE must be one of sqlite, mysql'],
    [{ DB_TYPE: 'mysql' }, 'DB_URL is required when DB_TYPE=mysql'],
    [{ DB_TYPE: 'mysql', DB_URL: 'postgres://x' }, 'DB_URL must use mysql: or mariadb:'],
    [
      { DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_READ_URLS: 'mysql://r/w,postgres://r/w' },
      'DB_READ_URLS must use mysql: or mariadb: (got "postgres://r/w")',
    ],
    [
      { DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_READ_URLS: 'replica-1:3306' },
      'DB_READ_URLS must use mysql: or mariadb: (got "replica-1:3306")',
    ],
    [{ DB_TYPE: 'mysql', DB_URL: 'mysql://db/w', DB_READ_URLS: ' , ' }, 'DB_READ_URLS must list'],
    [{ DB_READ_URLS: 'mysql://r/w' }, 'DB_READ_URLS needs DB_TYPE=mysql'],
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
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readDatabaseConfig).problems).toEqual([
      expect.stringContaining(message),
    ]);
  });
});
