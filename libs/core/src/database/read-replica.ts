import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '../errors/domain-errors';
import { driverErrorCode } from './db-errors';
import { NO_READ_REPLICA_CODE } from './replica-pools';

/** A replica read that failed and ran on the primary is logged at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * Where the reads that may lag behind the latest writes go: to a read replica when DB_READ_URLS
 * lists any (in the API process: DatabaseModule), to the primary otherwise. Exactly these ask
 * for it: an audience's size (through CostlyReads), a pass's holder list and a pass's
 * statistics. Everything else, writes, transactions, locks, migrations, the worker and every
 * other read, uses the data source as usual, which is the primary: TypeORM is told so
 * (`defaultMode: 'master'`, data-source-options.ts), so no read reaches a replica by default.
 *
 * A replica applies the primary's writes a little later (its replication delay, usually well
 * under a second): a holder created or changed a moment ago may be missing from these answers,
 * or be shown as it was, until the replica has caught up.
 *
 * A replica that cannot serve a read does not fail it: the read runs again on the primary. That
 * covers a replica that gives no connection (refused, or none within DB_CONNECT_TIMEOUT_MS or
 * DB_ACQUIRE_TIMEOUT_MS; replica-pools.ts then leaves it out for 10 s, during which its reads go
 * to the other replicas or straight to the primary), a query past DB_QUERY_TIMEOUT_MS, a
 * connection lost, or a replica that refuses the query (a table or column of a migration it has
 * not applied yet). A read whose replica stops answering thus answers up to one of those
 * deadlines later, from the primary. A query past its deadline does not leave the replica out
 * (a slow count is no outage): a replica gone silent costs the reads on its pooled connections
 * one query deadline each, until the first new connection to it fails and it is left out. An
 * error of the read's own (a bad cursor) is thrown as it is.
 */
@Injectable()
export class ReadReplica {
  private readonly logger = new Logger('ReadReplica');
  private warnedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly dataSource: DataSource) {}

  /** True when {@link read} goes to a replica (before any fallback). */
  get configured(): boolean {
    return this.dataSource.driver.isReplicated;
  }

  /**
   * `work` with an entity manager on a replica's connection (its query builders and repositories
   * read there), or on the primary. On the replica's failure `work` runs again on the primary:
   * it must only read, and build its queries anew each time. `wanted`, if given, is asked first:
   * false (its caller has stopped waiting, as CostlyReads' callers do at their deadline) leaves
   * the primary alone and the replica's error is thrown.
   */
  async read<T>(
    work: (manager: EntityManager) => Promise<T>,
    { wanted }: { wanted?: () => boolean } = {},
  ): Promise<T> {
    if (!this.configured) return work(this.dataSource.manager);
    const runner = this.dataSource.createQueryRunner('slave');
    try {
      return await work(runner.manager);
    } catch (error) {
      if (error instanceof DomainError || (wanted !== undefined && !wanted())) throw error;
      this.fellBack(error);
    } finally {
      await runner.release();
    }
    return work(this.dataSource.manager);
  }

  /** Rows of one SELECT, as {@link read} reads. */
  query<T>(sql: string, params: unknown[], options: { wanted?: () => boolean } = {}): Promise<T> {
    return this.read((manager) => manager.query<T>(sql, params), options);
  }

  private fellBack(error: unknown): void {
    const code = driverErrorCode(error);
    // With every replica left out, replica-pools.ts has said so once already.
    if (code === NO_READ_REPLICA_CODE) return;
    const now = performance.now();
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.logger.warn(
      { code, err: error },
      'A read on a read replica failed and ran on the primary (logged at most once a minute)',
    );
  }
}
