import { DataSource, QueryFailedError } from 'typeorm';
import {
  createTestDatabase,
  TEST_DB,
  type TestDatabase,
} from '../../../../test/support/test-database';
import { loadConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { driverErrorCode } from './db-errors';
import { withDatabaseTimeouts } from './mysql-deadlines';
import { rawQuery } from './raw-query';

/**
 * `rawQuery` against a real database of the suite's dialect: on MariaDB it bypasses TypeORM's
 * query runner, so what the runner gave callers (rows, errors, transactions, deadlines, the
 * pool's connections back) is checked against `dataSource.query` itself.
 */
describe(`rawQuery (${TEST_DB})`, () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ ...database.env, DB_POOL_SIZE: '3' });
    dataSource = new DataSource(dataSourceOptions(config.database, []));
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE item (id VARCHAR(36) PRIMARY KEY, label TEXT NULL)');
    await dataSource.query('INSERT INTO item (id, label) VALUES (?, ?), (?, ?)', [
      'a',
      'first',
      'b',
      null,
    ]);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('answers the rows dataSource.query answers', async () => {
    const sql = 'SELECT id, label FROM item WHERE id IN (?, ?) ORDER BY id';
    const rows = await rawQuery<{ id: string; label: string | null }[]>(dataSource, sql, [
      'a',
      'b',
    ]);
    expect(rows).toEqual([
      { id: 'a', label: 'first' },
      { id: 'b', label: null },
    ]);
    expect(rows).toEqual(await dataSource.query(sql, ['a', 'b']));
  });

  it("rejects a failed query with TypeORM's QueryFailedError and the driver's code", async () => {
    const failure = await rawQuery(dataSource, 'INSERT INTO item (id) VALUES (?)', ['a']).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError).query).toBe('INSERT INTO item (id) VALUES (?)');
    expect(driverErrorCode(failure)).toBe(
      TEST_DB === 'mysql' ? 'ER_DUP_ENTRY' : 'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
  });

  it("runs inside a transaction on the transaction's connection", async () => {
    await dataSource
      .transaction(async (manager) => {
        await rawQuery(manager, 'INSERT INTO item (id, label) VALUES (?, ?)', ['t', 'tx']);
        const seen = await rawQuery<{ id: string }[]>(manager, 'SELECT id FROM item WHERE id = ?', [
          't',
        ]);
        expect(seen).toEqual([{ id: 't' }]);
        throw new Error('roll back');
      })
      .catch((error: unknown) => expect(error).toEqual(new Error('roll back')));
    expect(await rawQuery(dataSource, 'SELECT id FROM item WHERE id = ?', ['t'])).toEqual([]);
  });

  it('gives every connection back to the pool, after failures too', async () => {
    // Three connections in the pool: any not given back would leave later queries waiting.
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? rawQuery(dataSource, 'SELECT no_such_column FROM item')
          : rawQuery<{ n: number }[]>(dataSource, 'SELECT ? AS n', [i]),
      ),
    );
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(10);
    const answered = results.flatMap((result) =>
      result.status === 'fulfilled' ? [Number((result.value as { n: number }[])[0].n)] : [],
    );
    expect(answered).toHaveLength(20);
    expect(await rawQuery(dataSource, 'SELECT id FROM item WHERE id = ?', ['a'])).toEqual([
      { id: 'a' },
    ]);
  });

  (TEST_DB === 'mysql' ? it : it.skip)(
    'keeps the query deadline: the query fails with the timeout code, the next one works',
    async () => {
      const started = Date.now();
      const failure = await withDatabaseTimeouts({ queryMs: 200 }, () =>
        rawQuery(dataSource, 'SELECT SLEEP(3) AS slept'),
      ).catch((error: unknown) => error);
      expect(driverErrorCode(failure)).toBe('PROTOCOL_SEQUENCE_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(2500);
      // Every connection of the pool still answers (the timed-out one was destroyed).
      const again = await Promise.all(
        Array.from({ length: 6 }, () => rawQuery<{ one: number }[]>(dataSource, 'SELECT 1 AS one')),
      );
      expect(again.map((rows) => Number(rows[0].one))).toEqual([1, 1, 1, 1, 1, 1]);
    },
  );
});
