import { spawnSync } from 'node:child_process';
import { DataSource } from 'typeorm';
import { sqliteDriver, sqlitePackage } from './sqlite-driver';

describe('sqliteDriver', () => {
  it('takes better-sqlite3 13 from Node-API 10 on, better-sqlite3 12 before', () => {
    expect(sqlitePackage('8')).toBe('better-sqlite3');
    expect(sqlitePackage('9')).toBe('better-sqlite3');
    expect(sqlitePackage('10')).toBe('better-sqlite3-napi');
    expect(sqlitePackage('11')).toBe('better-sqlite3-napi');
  });

  it(`loads the package for this Node.js (${process.version}, Node-API ${process.versions.napi}) and runs a query through TypeORM`, async () => {
    const dataSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      driver: sqliteDriver(),
    });
    await dataSource.initialize();
    try {
      expect(await dataSource.query('SELECT 1 + 1 AS two')).toEqual([{ two: 2 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  // A better-sqlite3 that does not fit this Node (12 on Node 24.19 and later, nodejs/node#65446)
  // aborts the process when the garbage collector finalizes its statements. In a process of its
  // own, an abort is this test failing with the signal, not a crashed Jest worker.
  it('survives thousands of statements left to the garbage collector', () => {
    const script = `
      const Database = require(process.argv[1]);
      const db = new Database(':memory:');
      for (let i = 0; i < 50000; i++) db.prepare('SELECT ' + i).get();
      for (let i = 0; i < 3; i++) global.gc();
      // Finalizers may also run while the process idles.
      setTimeout(() => { global.gc(); db.close(); process.stdout.write('collected'); }, 1000);
    `;
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '-e', script, require.resolve(sqlitePackage())],
      { encoding: 'utf8', timeout: 50_000 },
    );
    expect({
      status: child.status,
      signal: child.signal,
      stderr: child.stderr.slice(0, 2000),
    }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(child.stdout).toBe('collected');
  });
});
