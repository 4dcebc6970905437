import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { UnavailableError } from '../errors/domain-errors';
import { sqliteDriver } from './sqlite-driver';
import { CostlyReads } from './costly-reads';
import { ReadReplica } from './read-replica';

/** Counts to `n` in SQL: a statement that keeps SQLite busy for as long as asked. */
const countTo = (n: number) =>
  `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${n}) ` +
  'SELECT COUNT(*) AS total FROM c';

describe('CostlyReads', () => {
  let directory: string;
  let dataSource: DataSource;
  let reads: CostlyReads;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'read-thread-'));
    const path = join(directory, 'db.sqlite');
    dataSource = new DataSource({ type: 'better-sqlite3', database: path, driver: sqliteDriver() });
    await dataSource.initialize();
    await dataSource.query('PRAGMA journal_mode = WAL');
    await dataSource.query('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    await dataSource.query("INSERT INTO t (name) VALUES ('a'), ('b')");
    const config = {
      database: { type: 'sqlite', path, migrateOnStart: false, queryMs: 300 },
    } as AppConfig;
    reads = new CostlyReads(new ReadReplica(dataSource), config);
  });
  afterAll(async () => {
    await reads.onApplicationShutdown();
    await dataSource.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads what the main connection committed, with bound values', async () => {
    await dataSource.query("INSERT INTO t (name) VALUES ('c')");
    expect(await reads.query('SELECT name FROM t WHERE id > ? ORDER BY id', [1])).toEqual([
      { name: 'b' },
      { name: 'c' },
    ]);
    expect(await reads.query('SELECT ? AS yes', [true])).toEqual([{ yes: 1 }]);
  });

  it('keeps the event loop free while a statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    await reads.query(countTo(300_000), []);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('refuses a read past its deadline with 503, and the next read is answered', async () => {
    const started = Date.now();
    await expect(reads.query(countTo(1e9), [])).rejects.toBeInstanceOf(UnavailableError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await reads.query('SELECT COUNT(*) AS total FROM t', [])).toEqual([{ total: 3 }]);
  });

  it('passes an error of the statement on', async () => {
    await expect(reads.query('SELECT nope FROM t', [])).rejects.toThrow(/no such column/);
  });
});
