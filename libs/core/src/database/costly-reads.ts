import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { UnavailableError } from '../errors/domain-errors';
import { ReadReplica } from './read-replica';
import { sqlitePackage } from './sqlite-driver';

/** Reads waiting for a turn, beyond which a read is refused at once (503) instead. */
const MAX_WAITING = 32;

/** Share of a MariaDB/MySQL pool costly reads may hold at once: the rest stays for the others. */
const POOL_SHARE = 0.25;

/**
 * The thread's code: one read-only connection to the database file, running one statement per
 * message. Written as source (not a module of ours) so that it runs the same from TypeScript
 * under Jest and from the build; it loads only the driver, by the path the main thread resolved.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
parentPort.on('message', ({ id, sql, params }) => {
  try {
    parentPort.postMessage({ id, rows: db.prepare(sql).all(...params) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

/** A costly read ran past its deadline (503): the caller may say why its read is slow. */
export class ReadDeadlineError extends UnavailableError {
  constructor(readonly deadlineMs: number) {
    super('The database did not answer in time');
  }
}

interface Read {
  id: number;
  sql: string;
  params: unknown[];
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** Its caller was answered (rows, an error, or the deadline): later outcomes are dropped. */
  settled: boolean;
}

type Answer = { id: number; rows: unknown[] } | { id: number; error: string };

/**
 * Reads whose cost a client chooses (an audience's size), kept from crowding out everything
 * else: they take turns, a few at a time, and each has a deadline, DB_QUERY_TIMEOUT_MS from when
 * it was asked, waiting included, past which its caller gets 503 UNAVAILABLE with Retry-After.
 * At most {@link MAX_WAITING} wait; more are refused with 503 at once.
 *
 * - **SQLite** (a file): better-sqlite3 runs each statement on the thread that calls it, so a
 *   count that takes a second would hold every request of the process, of any workspace, for
 *   that second. They run on a thread of their own instead, with a read-only connection to the
 *   same file (WAL lets it read while the main connection writes), one at a time. A statement
 *   cannot be interrupted, so a thread still running one at its deadline is left to finish it
 *   and end, and a fresh thread takes the reads after it.
 * - **MariaDB/MySQL**: each read runs on a pool, under the driver's own query deadline, but at
 *   most a quarter of a pool's connections at once, so that a flood of them never leaves the
 *   other requests waiting for a connection. The pool is a read replica's when DB_READ_URLS
 *   lists any (ReadReplica: the answer may lag the latest writes a little; a replica that fails
 *   a read hands it to the primary), else the primary's.
 * - An in-memory SQLite database, which no second connection can open: on its one connection.
 */
@Injectable()
export class CostlyReads implements OnApplicationShutdown {
  private readonly logger = new Logger('CostlyReads');
  /** The file a read thread opens; null: reads run through the DataSource. */
  private readonly threadPath: string | null;
  private readonly slots: number;
  private readonly deadlineMs: number;
  private worker: Worker | null = null;
  private readonly running = new Set<Read>();
  private readonly waiting: Read[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly replica: ReadReplica,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const db = config.database;
    this.threadPath = db.type === 'sqlite' && db.path !== ':memory:' ? db.path : null;
    this.slots = db.type === 'sqlite' ? 1 : Math.max(1, Math.floor(db.poolSize * POOL_SHARE));
    this.deadlineMs = db.type === 'sqlite' ? db.queryMs : db.timeouts.queryMs;
  }

  /** Rows of one SELECT, in turn (see the class comment). */
  query<T>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.closed) return Promise.reject(new UnavailableError('The service is shutting down'));
    if (this.waiting.length >= MAX_WAITING) {
      return Promise.reject(new UnavailableError('Too many costly reads at once; try again'));
    }
    return new Promise<T[]>((resolve, reject) => {
      const read: Read = {
        id: ++this.nextId,
        sql,
        params,
        resolve: (rows) => resolve(rows as T[]),
        reject,
        timer: setTimeout(() => this.expire(read), this.deadlineMs),
        settled: false,
      };
      this.waiting.push(read);
      this.next();
    });
  }

  onApplicationShutdown(): Promise<number> | undefined {
    this.closed = true;
    for (const read of [...this.waiting, ...this.running]) {
      this.settle(read, new UnavailableError('The service is shutting down'));
    }
    this.waiting.length = 0;
    this.running.clear();
    return this.worker?.terminate();
  }

  private next(): void {
    while (!this.closed && this.running.size < this.slots && this.waiting.length > 0) {
      const read = this.waiting.shift()!;
      this.running.add(read);
      if (this.threadPath === null) this.onPool(read);
      else this.thread().postMessage({ id: read.id, sql: read.sql, params: bindable(read.params) });
    }
  }

  private onPool(read: Read): void {
    // A count the replica could not finish in time has had its 503: not run again on the primary.
    const wanted = (): boolean => !read.settled;
    this.replica.query<unknown[]>(read.sql, read.params, { wanted }).then(
      (rows) => this.finished(read, rows),
      (error: Error) => this.finished(read, error),
    );
  }

  private finished(read: Read, outcome: unknown[] | Error): void {
    this.running.delete(read);
    this.settle(read, outcome);
    this.next();
  }

  private settle(read: Read, outcome: unknown[] | Error): void {
    if (read.settled) return;
    read.settled = true;
    clearTimeout(read.timer);
    if (outcome instanceof Error) read.reject(outcome);
    else read.resolve(outcome);
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { driverPath: require.resolve(sqlitePackage()), path: this.threadPath },
    });
    worker.unref();
    worker.on('message', (answer: Answer) => this.answered(worker, answer));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', () => this.lost(worker, new Error('The read thread exited')));
    this.worker = worker;
    return worker;
  }

  private answered(worker: Worker, answer: Answer): void {
    if (worker !== this.worker) return;
    const read = [...this.running].find((each) => each.id === answer.id);
    if (read === undefined) return;
    this.finished(read, 'rows' in answer ? answer.rows : new Error(answer.error));
  }

  /**
   * A read's deadline passed: its caller gets 503. A waiting read is dropped. A running one keeps
   * its turn until it ends (on the pool, the driver's deadline ends it); on the read thread, the
   * thread is left to finish the statement and a fresh one goes on.
   */
  private expire(read: Read): void {
    this.settle(read, new ReadDeadlineError(this.deadlineMs));
    const at = this.waiting.indexOf(read);
    if (at !== -1) {
      this.waiting.splice(at, 1);
      return;
    }
    if (!this.running.has(read) || this.threadPath === null) return;
    this.logger.warn({ deadlineMs: this.deadlineMs }, 'A read ran past its deadline');
    this.running.delete(read);
    const behind = this.worker;
    this.worker = null;
    void behind?.terminate();
    this.next();
  }

  private lost(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    this.worker = null;
    for (const read of this.running) this.settle(read, error);
    this.running.clear();
    if (!this.closed) this.logger.error({ err: error }, 'The read thread stopped');
    this.next();
  }
}

/** better-sqlite3 binds no booleans; TypeORM writes them as 1 and 0 too. */
const bindable = (params: unknown[]): unknown[] =>
  params.map((each) => (typeof each === 'boolean' ? Number(each) : each));
