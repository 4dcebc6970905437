import { Logger } from '@nestjs/common';
import type { Pool, PoolConnection, PoolOptions } from 'mysql2';

/** The names TypeORM's MySQL driver gives the pools of a replicated data source. */
const PRIMARY = 'MASTER';
const ANY_REPLICA = 'SLAVE*';

/** How long a replica that gave no connection is left out before one read tries it again. */
export const REPLICA_REST_MS = 10_000;

/** The code of the error a replica read gets while every replica is left out. */
export const NO_READ_REPLICA_CODE = 'DB_NO_READ_REPLICA';

type ConnectionCallback = (error: Error | null, connection?: PoolConnection) => void;

interface Replica {
  /** `host:port`, for the log (never the URL: it carries the password). */
  where: string;
  pool: Pool;
  /** 0 while it answers; else when a read may try it again. */
  restingUntil: number;
  /** A read is trying it after its rest: the others keep away until that one knows. */
  probing: boolean;
}

/**
 * What TypeORM's `replication` asks of the driver's `createPoolCluster`: it adds the primary's
 * pool as `MASTER` and each replica's as `SLAVE0`, `SLAVE1`, …, then asks for a connection of
 * `MASTER` (writes, transactions, migrations, every read not sent to a replica on purpose) or of
 * any `SLAVE*` (a query runner made with `createQueryRunner('slave')`), and ends them all on
 * close. Each pool is made by `createPool`, so it has the deadlines of mysql-deadlines.ts.
 *
 * mysql2's own PoolCluster is not used: it makes its pools without `createPool` (so without the
 * deadlines); by default it drops a pool for good after five failed connections, the primary's
 * included (every later write would fail until a restart); and with its retries on, it retries a
 * refused server in a tight loop.
 *
 * The primary's pool is a plain pool: a request that cannot reach the primary fails as it does
 * without replicas (503). The replicas are taken in turn; one that gives no connection (refused,
 * no handshake within DB_CONNECT_TIMEOUT_MS, none free within DB_ACQUIRE_TIMEOUT_MS) is left out
 * for {@link REPLICA_REST_MS}, then one read tries it again while the others go elsewhere. With
 * every replica left out, a replica connection fails at once with {@link NO_READ_REPLICA_CODE},
 * and ReadReplica runs the read on the primary. Each outage is logged once, as is its end.
 */
export class PrimaryAndReplicaPools {
  private readonly logger = new Logger('ReadReplicas');
  private primary: Pool | undefined;
  private readonly replicas: Replica[] = [];
  private turn = 0;

  constructor(
    private readonly createPool: (options: PoolOptions) => Pool,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(name: string, options: PoolOptions): void {
    const pool = this.createPool(options);
    if (name === PRIMARY) {
      this.primary = pool;
      return;
    }
    const where = `${options.host ?? 'localhost'}:${options.port ?? 3306}`;
    this.replicas.push({ where, pool, restingUntil: 0, probing: false });
  }

  getConnection(pattern: string, callback: ConnectionCallback): void {
    if (pattern === PRIMARY && this.primary !== undefined) {
      this.primary.getConnection(callback);
    } else if (pattern === ANY_REPLICA && this.replicas.length > 0) {
      this.replicaConnection(callback);
    } else {
      callback(new Error(`No database pool named ${pattern}`));
    }
  }

  end(callback: (error: Error | null) => void): void {
    const pools = this.replicas.map((replica) => replica.pool);
    if (this.primary !== undefined) pools.push(this.primary);
    let left = pools.length;
    let first: Error | null = null;
    if (left === 0) {
      process.nextTick(() => callback(null));
      return;
    }
    for (const pool of pools) {
      pool.end((error) => {
        first ??= error;
        if (--left === 0) callback(first);
      });
    }
  }

  private replicaConnection(callback: ConnectionCallback): void {
    const replica = this.nextReplica();
    if (replica === undefined) {
      const error = new Error(
        `No read replica answered within the last ${REPLICA_REST_MS} ms`,
      ) as Error & { code: string };
      error.code = NO_READ_REPLICA_CODE;
      callback(error);
      return;
    }
    replica.pool.getConnection((error, connection) => {
      if (error === null) this.answered(replica);
      else this.failed(replica, error);
      callback(error, connection);
    });
  }

  /** The next replica in turn that is not left out; one whose rest is over, to one read only. */
  private nextReplica(): Replica | undefined {
    const now = this.now();
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.turn];
      this.turn = (this.turn + 1) % this.replicas.length;
      if (replica.restingUntil === 0) return replica;
      if (replica.restingUntil <= now && !replica.probing) {
        replica.probing = true;
        return replica;
      }
    }
    return undefined;
  }

  private answered(replica: Replica): void {
    if (replica.restingUntil === 0) return;
    replica.restingUntil = 0;
    replica.probing = false;
    this.logger.log({ replica: replica.where }, 'A read replica answers again');
  }

  private failed(replica: Replica, error: Error & { code?: string }): void {
    if (replica.restingUntil === 0) {
      this.logger.warn(
        { replica: replica.where, code: error.code, err: error },
        `A read replica gave no connection: its reads go to the other replicas or the primary, ` +
          `and it is tried again every ${REPLICA_REST_MS} ms`,
      );
    }
    replica.restingUntil = this.now() + REPLICA_REST_MS;
    replica.probing = false;
  }
}
