import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

describe('SQLite connection gate', () => {
  const path = join(tmpdir(), `wps-gate-${process.pid}.sqlite`);
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = new DataSource({
      ...dataSourceOptions({ type: 'sqlite', path, migrateOnStart: false, queryMs: 4000 }, []),
      migrations: [],
    });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
  });
  afterAll(async () => {
    await dataSource.destroy();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  });

  const pause = () => new Promise((resolve) => setTimeout(resolve, 10));

  it('runs concurrent transactions one after another instead of failing', async () => {
    const counts = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        dataSource.transaction(async (manager) => {
          await manager.query('INSERT INTO item (label) VALUES (?)', [`tx-${n}`]);
          await pause();
          const [row] = await manager.query<{ c: number }[]>(
            "SELECT COUNT(*) AS c FROM item WHERE label LIKE 'tx-%'",
          );
          return row.c;
        }),
      ),
    );
    expect([...counts].sort()).toEqual([1, 2, 3, 4]);
  });

  it('keeps a plain write of another caller out of a transaction that rolls back', async () => {
    const failing = dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO item (label) VALUES (?)', ['doomed']);
      await pause();
      throw new Error('roll back');
    });
    const independent = dataSource.query('INSERT INTO item (label) VALUES (?)', ['kept']);
    await expect(failing).rejects.toThrow('roll back');
    await independent;
    const rows = await dataSource.query<{ label: string }[]>(
      "SELECT label FROM item WHERE label IN ('doomed', 'kept')",
    );
    const labels = rows.map((row) => row.label);
    expect(labels).toEqual(['kept']);
  });
});
