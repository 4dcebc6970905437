import { AsyncLocalStorage } from 'node:async_hooks';
import { createPool, type Pool, type PoolOptions } from 'mysql2';
import { PrimaryAndReplicaPools } from './replica-pools';

/**
 * Deadlines on the MySQL/MariaDB pool, so that a database host that stops answering (packets
 * dropped, connections left open) fails requests within seconds instead of leaving them on
 * pooled sockets until TCP gives up.
 *
 * - connect: mysql2's `connectTimeout` (set in data-source-options.ts) covers the TCP connect
 *   and the handshake.
 * - acquire: mysql2's pool has no acquire timeout (TypeORM's `acquireTimeout` is passed through
 *   and ignored), so {@link mysqlDriverWithDeadlines} bounds `getConnection` itself: a caller
 *   waiting longer gets an error, and a connection that arrives after that goes back to the pool.
 * - query: a deadline per query. Failing only the query would not do: the connection keeps the
 *   unanswered command at the head of its queue, so every command behind it would wait too, and
 *   TypeORM would release it to the pool like that. A connection whose query timed out is
 *   therefore destroyed (removed from the pool, socket closed; the server rolls back whatever
 *   it had open), and the pool opens a fresh one when the host answers again.
 *
 * TypeORM's own `enableQueryTimeout` sets mysql2's per-query `timeout` but leaves the connection
 * in the pool, which is the hang this module exists to avoid.
 */
export interface MysqlDeadlines {
  acquireMs: number;
  queryMs: number;
}

/** What a piece of work asks for instead of the pool's defaults (see {@link withDatabaseTimeouts}). */
export interface DatabaseTimeouts {
  /** Per query; `null` for none (migrations, which may rewrite large tables). */
  queryMs?: number | null;
  acquireMs?: number;
}

/** The code of the error a caller gets when no connection came within the acquire timeout. */
export const ACQUIRE_TIMEOUT_CODE = 'DB_ACQUIRE_TIMEOUT';

const overrides = new AsyncLocalStorage<DatabaseTimeouts>();
/** The timeouts {@link withDatabaseTimeouts} set for the work running now, if any. */
export function currentDatabaseTimeouts(): DatabaseTimeouts | undefined {
  return overrides.getStore();
}

/** Calls of {@link withDatabaseTimeouts} not yet settled. */
let running = 0;

/**
 * Runs `work` with other timeouts for the MySQL queries it makes (through any TypeORM call in
 * its async context): `/health` wants a shorter one, migrations none. No effect on SQLite.
 *
 * Once the last such call has settled the storage is disabled again. On Node 20 an enabled
 * AsyncLocalStorage keeps promise hooks on in the whole process, and the worker's only one is
 * this (its migrations at start): left on, every promise of a fan-out paid for the hook (5 % of
 * the worker's allocations, 2 % of its CPU in bench:fanout). `run` enables it again when needed.
 */
export async function withDatabaseTimeouts<T>(
  timeouts: DatabaseTimeouts,
  work: () => Promise<T>,
): Promise<T> {
  running++;
  try {
    return await overrides.run({ ...currentDatabaseTimeouts(), ...timeouts }, work);
  } finally {
    running--;
    if (running === 0) overrides.disable();
  }
}

type QueryCallback = (error: (Error & { code?: string }) | null, ...results: unknown[]) => void;

/** The part of a mysql2 pool connection the deadlines touch. */
interface DeadlineConnection {
  query(...args: unknown[]): unknown;
  release(): void;
  destroy(): void;
}

type GetConnectionCallback = (error: Error | null, connection?: DeadlineConnection) => void;

interface DeadlinePool {
  getConnection(callback: GetConnectionCallback): void;
}

const QUERY_TIMEOUT_CODE = 'PROTOCOL_SEQUENCE_TIMEOUT';

/**
 * A stand-in for the `mysql2` module as TypeORM's `driver` option: its `createPool` makes a real
 * mysql2 pool with the acquire and query deadlines. With read replicas (TypeORM's `replication`)
 * TypeORM calls `createPoolCluster` instead, and gets one such pool per server (replica-pools.ts).
 * TypeORM needs nothing else of the module.
 */
export function mysqlDriverWithDeadlines(deadlines: MysqlDeadlines): {
  createPool(options: PoolOptions): Pool;
  createPoolCluster(): PrimaryAndReplicaPools;
} {
  const createPoolWithDeadlines = (options: PoolOptions): Pool => {
    const pool = createPool(options);
    installDeadlines(pool, deadlines);
    return pool;
  };
  return {
    createPool: createPoolWithDeadlines,
    createPoolCluster: () => new PrimaryAndReplicaPools(createPoolWithDeadlines),
  };
}

function installDeadlines(pool: DeadlinePool, deadlines: MysqlDeadlines): void {
  const getConnection = pool.getConnection.bind(pool);
  const bounded = new WeakSet<DeadlineConnection>();

  pool.getConnection = (callback: GetConnectionCallback): void => {
    const acquireMs = currentDatabaseTimeouts()?.acquireMs ?? deadlines.acquireMs;
    let answered = false;
    const timer = setTimeout(() => {
      answered = true;
      const error = new Error(`No database connection within ${acquireMs} ms`) as Error & {
        code: string;
      };
      error.code = ACQUIRE_TIMEOUT_CODE;
      callback(error);
    }, acquireMs);
    getConnection((error, connection) => {
      if (answered) {
        // The caller gave up; the connection is fine, so it serves the next one.
        if (error === null && connection !== undefined) connection.release();
        return;
      }
      answered = true;
      clearTimeout(timer);
      if (error !== null || connection === undefined) {
        callback(error);
        return;
      }
      if (!bounded.has(connection)) {
        boundQueries(connection, deadlines.queryMs);
        bounded.add(connection);
      }
      callback(null, connection);
    });
  };
}

/**
 * Gives every query of the connection a deadline and destroys the connection when one passes.
 *
 * The deadline is our own timer rather than mysql2's `timeout` option: that option needs the
 * query as an options object, which mysql2 copies with two object spreads per query, on top of
 * the copy this wrapper would make to add it (about 5 µs a query under bench:api). The error
 * is the one mysql2 gives for its own timeout, code and all, so callers see no difference. A
 * result or error the connection reports after the deadline (it is being destroyed) is dropped.
 */
function boundQueries(connection: DeadlineConnection, defaultMs: number): void {
  const query = connection.query.bind(connection);
  // mysql2's forms: (sql or options, callback) and (sql or options, values, callback).
  connection.query = (first: unknown, second?: unknown, third?: unknown): unknown => {
    const callback = (typeof third === 'function' ? third : second) as QueryCallback;
    const store = currentDatabaseTimeouts();
    const timeoutMs = store?.queryMs === undefined ? defaultMs : store.queryMs;
    // Without a callback (streams) there is nowhere to see the timeout: left as it was.
    if (timeoutMs === null || typeof callback !== 'function') {
      return third === undefined ? query(first, second) : query(first, second, third);
    }

    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      connection.destroy();
      callback(queryTimeoutError());
    }, timeoutMs);
    const bounded: QueryCallback = (error, rows, fields) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(error, rows, fields);
    };
    return typeof third === 'function' ? query(first, second, bounded) : query(first, bounded);
  };
}

/** What mysql2 reports when its own per-query `timeout` passes. */
function queryTimeoutError(): Error & { code: string; errorno: string; syscall: string } {
  return Object.assign(new Error('Query inactivity timeout'), {
    code: QUERY_TIMEOUT_CODE,
    errorno: QUERY_TIMEOUT_CODE,
    syscall: 'query',
  });
}
