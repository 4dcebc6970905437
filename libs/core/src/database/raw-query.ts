import { EntityManager, QueryFailedError, type DataSource } from 'typeorm';

type QueryCallback = (error: Error | null, rows?: unknown) => void;

/** The part of a mysql2 pool (TypeORM's, with the deadlines of mysql-deadlines.ts) used here. */
interface ConnectionPool {
  getConnection(callback: (error: Error | null, connection?: PooledConnection) => void): void;
}

interface PooledConnection {
  query(sql: string, values: unknown[], callback: QueryCallback): unknown;
  release(): void;
}

/**
 * `runner.query(sql, params)` for the hand-written SQL of the busiest paths (the principal of
 * every request, list pages, the pass insert). On MySQL/MariaDB, outside a transaction, it
 * takes a connection from TypeORM's own pool and sends the SQL itself: TypeORM's `query` makes
 * a query runner, connects it, broadcasts to subscribers before and after (we have none) and
 * goes through mysql2's promise wrapper, about 15 promises a query, each paying Node's async
 * hooks while AsyncLocalStorage is on (docs/decisions.md, "Hot paths"). Here it is
 * one. The pool is the same, so are the deadlines, the type casting and the rows; a failed
 * query rejects with TypeORM's `QueryFailedError`, as `runner.query` does, and a connection that
 * could not be had with the pool's error.
 *
 * Everywhere else (SQLite, or an entity manager inside a transaction, whose connection it must
 * use) this is `runner.query`.
 */
export function rawQuery<T>(
  runner: DataSource | EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T> {
  const pool = mysqlPoolOf(runner);
  if (pool === undefined) return runner.query<T>(sql, params);
  return new Promise<T>((resolve, reject) => {
    pool.getConnection((acquireError, connection) => {
      if (acquireError !== null || connection === undefined) {
        reject(acquireError ?? new Error('The pool gave no connection'));
        return;
      }
      connection.query(sql, params, (error, rows) => {
        // A connection destroyed by its deadline has left the pool; release is then a no-op.
        connection.release();
        if (error !== null) reject(new QueryFailedError(sql, params, error));
        else resolve(rows as T);
      });
    });
  });
}

/** The pools of a data source with read replicas (replica-pools.ts); `MASTER` is the primary's. */
interface PrimaryAndReplicas {
  getConnection(
    pattern: 'MASTER',
    callback: (error: Error | null, connection?: PooledConnection) => void,
  ): void;
}

function mysqlPoolOf(runner: DataSource | EntityManager): ConnectionPool | undefined {
  if (runner instanceof EntityManager && runner.queryRunner !== undefined) return undefined;
  const driver = runner instanceof EntityManager ? runner.connection.driver : runner.driver;
  if (driver.options.type !== 'mysql' && driver.options.type !== 'mariadb') return undefined;
  const { pool, poolCluster } = driver as unknown as {
    pool?: ConnectionPool;
    poolCluster?: PrimaryAndReplicas;
  };
  // With read replicas TypeORM keeps the primary's pool among the others: the SQL sent here
  // goes to the primary all the same.
  if (poolCluster !== undefined) {
    return { getConnection: (callback) => poolCluster.getConnection('MASTER', callback) };
  }
  return pool;
}
