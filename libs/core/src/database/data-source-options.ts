import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';
import { MIGRATIONS } from './migrations';
import { mysqlDriverWithDeadlines } from './mysql-deadlines';
import { sqliteDriver } from './sqlite-driver';
import { installSqliteConnectionGate } from './sqlite-gate';

type EntityList = NonNullable<DataSourceOptions['entities']>;

/**
 * One description of the database for the app, the worker, the TypeORM CLI and the tests.
 * `synchronize` is never on: the schema comes only from migrations. For SQLite it installs the
 * connection gate first, so no data source built from these options runs ungated.
 *
 * `readReplicas`: whether this data source opens pools to the replicas of DB_READ_URLS. Only
 * the API's does (DatabaseModule); the worker, migrations and the CLI use the primary alone.
 */
export function dataSourceOptions(
  db: DatabaseConfig,
  entities: EntityList,
  { readReplicas = false }: { readReplicas?: boolean } = {},
): DataSourceOptions {
  const common = {
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
  } as const;

  if (db.type === 'mysql') {
    const replicas = readReplicas ? db.readUrls : [];
    return {
      ...common,
      type: 'mysql',
      ...(replicas.length === 0
        ? { url: db.url }
        : {
            // TypeORM then opens a pool per server (createPoolCluster below) and ignores `url`.
            replication: {
              master: { url: db.url },
              slaves: replicas.map((url) => ({ url })),
              // Without this TypeORM sends every find and query-builder read made outside a
              // transaction to a replica (SelectQueryBuilder asks for the data source's
              // `defaultReplicationModeForReads()`, "slave" unless set here). Only the reads
              // that may lag go there, each asking on purpose: see read-replica.ts.
              defaultMode: 'master',
            },
          }),
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      poolSize: db.poolSize,
      // Covers TCP connect and handshake of each new connection (an unanswered SYN included).
      connectTimeout: db.timeouts.connectMs,
      // Acquire and query deadlines, which mysql2's pool lacks or applies without dropping the
      // stuck connection: see mysql-deadlines.ts. Every pool has them, each replica's too; the
      // connect timeout above and the pool size apply to each server alike.
      driver: mysqlDriverWithDeadlines({
        acquireMs: db.timeouts.acquireMs,
        queryMs: db.timeouts.queryMs,
      }),
      // trace: false stops mysql2 capturing a stack trace on every query (3 % of the CPU of
      // a list request); TypeORM's QueryFailedError still names the query that failed.
      extra: { trace: false },
    };
  }

  // TypeORM shares one connection between all callers; the gate makes them take turns.
  installSqliteConnectionGate();
  if (db.path !== ':memory:') mkdirSync(dirname(db.path), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: db.path,
    // better-sqlite3 13 or 12, whichever this Node.js runs: see sqlite-driver.ts.
    driver: sqliteDriver(),
    // WAL lets readers go on while one writer writes; busy_timeout waits out short write locks.
    prepareDatabase: (connection: { pragma(sql: string): unknown }) => {
      connection.pragma('journal_mode = WAL');
      connection.pragma('busy_timeout = 5000');
      connection.pragma('foreign_keys = ON');
    },
  };
}
