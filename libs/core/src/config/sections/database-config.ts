import type { EnvReader } from '../env-reader';

export type DatabaseConfig =
  | {
      type: 'sqlite';
      path: string;
      migrateOnStart: boolean;
      /** The deadline of a costly read run off the event loop (see costly-reads.ts). */
      queryMs: number;
    }
  | {
      type: 'mysql';
      url: string;
      /**
       * Read replicas of `url` (DB_READ_URLS), for the reads that may lag: see read-replica.ts.
       * Same credentials handling, pool size and timeouts as the primary. Empty: none.
       */
      readUrls: string[];
      migrateOnStart: boolean;
      poolSize: number;
      /**
       * How long a database host that stops answering may hold a request: opening a connection
       * (TCP and handshake), waiting for a pooled one, and one query. See mysql-deadlines.ts.
       */
      timeouts: { connectMs: number; acquireMs: number; queryMs: number };
    };

const MYSQL_PROTOCOLS = ['mysql:', 'mariadb:'];

/** `DB_TYPE` and, per type, its file or its server, replicas, pool and timeouts. */
export function readDatabaseConfig(read: EnvReader): DatabaseConfig {
  const dbType = read.oneOf('DB_TYPE', ['sqlite', 'mysql'] as const, 'sqlite');
  const migrateOnStart = read.bool('DB_MIGRATE_ON_START', true);
  if (dbType === 'sqlite') {
    if (read.optional('DB_READ_URLS') !== undefined) {
      read.problems.push('DB_READ_URLS needs DB_TYPE=mysql (SQLite has no read replicas)');
    }
    return {
      type: 'sqlite',
      path: read.string('DB_PATH', './data/wallet.sqlite'),
      migrateOnStart,
      queryMs: read.int('DB_QUERY_TIMEOUT_MS', 4000, 100, 3_600_000),
    };
  }
  const url = read.url('DB_URL', undefined, MYSQL_PROTOCOLS);
  if (url === undefined) read.problems.push('DB_URL is required when DB_TYPE=mysql');
  return {
    type: 'mysql',
    url: url ?? '',
    readUrls: read.urlList('DB_READ_URLS', MYSQL_PROTOCOLS),
    migrateOnStart,
    poolSize: read.int('DB_POOL_SIZE', 10, 1, 500),
    // Below the 5 s in which a request should learn that the database is away (a 503).
    timeouts: {
      connectMs: read.int('DB_CONNECT_TIMEOUT_MS', 3000, 100, 120_000),
      acquireMs: read.int('DB_ACQUIRE_TIMEOUT_MS', 3000, 100, 120_000),
      queryMs: read.int('DB_QUERY_TIMEOUT_MS', 4000, 100, 3_600_000),
    },
  };
}
