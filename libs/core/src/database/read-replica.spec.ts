import { Logger } from '@nestjs/common';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { DataSource } from 'typeorm';
import {
  createTestDatabase,
  TEST_DB,
  type TestDatabase,
} from '../../../../test/support/test-database';
import { loadConfig } from '../config/app-config';
import { InvalidInputError } from '../errors/domain-errors';
import { dataSourceOptions } from './data-source-options';
import { rawQuery } from './raw-query';
import { ReadReplica } from './read-replica';
import { closedPort } from '../../../../test/support/closed-port';

const MYSQL = TEST_DB === 'mysql';

/** Where a row of `item` was read: each database of the pair holds its own name. */
const SOURCE = 'SELECT source FROM item';
type Rows = { source: string }[];

/**
 * Which server each kind of read goes to, against a real database of the suite's dialect. On
 * MariaDB two databases of the test server stand for the primary and its replica (a real pair is
 * test/read-replicas.e2e-spec.ts): each holds a row naming itself, so every answer says where it
 * was read. SQLite has no replicas: ReadReplica reads the one database.
 */
describe(`ReadReplica (${TEST_DB})`, () => {
  const databases: TestDatabase[] = [];
  const dataSources: DataSource[] = [];
  let primary: TestDatabase;
  let replica: TestDatabase;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    primary = await createTestDatabase();
    replica = await createTestDatabase();
    databases.push(primary, replica);
    for (const [database, source] of [
      [primary, 'primary'],
      [replica, 'replica'],
    ] as const) {
      const setUp = await open(database.env);
      await setUp.query('CREATE TABLE item (source VARCHAR(20) NOT NULL)');
      await setUp.query('INSERT INTO item (source) VALUES (?)', [source]);
    }
    // A table the replica has not got yet, as after a migration it has not applied.
    await dataSources[0].query('CREATE TABLE newer (source VARCHAR(20) NOT NULL)');
    await dataSources[0].query("INSERT INTO newer (source) VALUES ('primary')");
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    for (const dataSource of dataSources) await dataSource.destroy();
    for (const database of databases) await database.drop();
  });

  async function open(
    env: Record<string, string>,
    readReplicas = false,
    extra: Record<string, string> = {},
  ): Promise<DataSource> {
    const config = loadConfig({ ...env, DB_POOL_SIZE: '3', ...extra });
    const dataSource = new DataSource(dataSourceOptions(config.database, [], { readReplicas }));
    await dataSource.initialize();
    dataSources.push(dataSource);
    return dataSource;
  }

  /** The primary, with the replica (or the server given) as DB_READ_URLS. */
  const withReplica = (readUrl = replica.env.DB_URL, extra: Record<string, string> = {}) =>
    open({ ...primary.env, DB_READ_URLS: readUrl }, true, extra);

  (MYSQL ? it : it.skip)(
    'reads on the replica only what ReadReplica is asked for; all else on the primary',
    async () => {
      const dataSource = await withReplica();
      const reads = new ReadReplica(dataSource);
      expect(reads.configured).toBe(true);
      expect(await reads.query<Rows>(SOURCE, [])).toEqual([{ source: 'replica' }]);
      expect(
        await reads.read((manager) =>
          manager.createQueryBuilder().select('i.source', 'source').from('item', 'i').getRawMany(),
        ),
      ).toEqual([{ source: 'replica' }]);

      // TypeORM's own reads (a query builder outside a transaction would go to a replica by
      // default), hand-written SQL, transactions: the primary.
      const built = await dataSource
        .createQueryBuilder()
        .select('i.source', 'source')
        .from('item', 'i')
        .getRawMany();
      expect(built).toEqual([{ source: 'primary' }]);
      expect(await dataSource.query(SOURCE)).toEqual([{ source: 'primary' }]);
      expect(await rawQuery(dataSource, SOURCE)).toEqual([{ source: 'primary' }]);
      expect(await dataSource.transaction((manager) => manager.query(SOURCE))).toEqual([
        { source: 'primary' },
      ]);
    },
  );

  it('reads the primary when the data source was not opened with replicas (the worker)', async () => {
    const env = MYSQL ? { ...primary.env, DB_READ_URLS: replica.env.DB_URL } : primary.env;
    const dataSource = await open(env);
    const reads = new ReadReplica(dataSource);
    expect(reads.configured).toBe(false);
    expect(await reads.query<Rows>(SOURCE, [])).toEqual([{ source: 'primary' }]);
  });

  (MYSQL ? it : it.skip)('runs a read on the primary when the replica refuses it', async () => {
    const reads = new ReadReplica(await withReplica());
    expect(await reads.query<Rows>('SELECT source FROM newer', [])).toEqual([
      { source: 'primary' },
    ]);
  });

  (MYSQL ? it : it.skip)(
    'leaves the primary alone when the caller no longer wants the answer',
    async () => {
      const reads = new ReadReplica(await withReplica());
      await expect(
        reads.query('SELECT source FROM newer', [], { wanted: () => false }),
      ).rejects.toMatchObject({ driverError: { code: 'ER_NO_SUCH_TABLE' } });
    },
  );

  (MYSQL ? it : it.skip)(
    'runs a read on the primary when the replica refuses connections',
    async () => {
      const closed = await closedPort();
      const reads = new ReadReplica(await withReplica(`mysql://root@127.0.0.1:${closed}/x`));
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        expect(await reads.query<Rows>(SOURCE, [])).toEqual([{ source: 'primary' }]);
      }
      expect(performance.now() - started).toBeLessThan(2000);
    },
  );

  (MYSQL ? it : it.skip)(
    "keeps the replica's acquire deadline: a silent replica's read runs on the primary",
    async () => {
      const silent = await silentServer();
      try {
        const reads = new ReadReplica(
          await withReplica(`mysql://root@127.0.0.1:${silent.port}/x`, {
            DB_CONNECT_TIMEOUT_MS: '10000',
            DB_ACQUIRE_TIMEOUT_MS: '300',
          }),
        );
        const started = performance.now();
        expect(await reads.query<Rows>(SOURCE, [])).toEqual([{ source: 'primary' }]);
        const took = performance.now() - started;
        expect(took).toBeGreaterThanOrEqual(290);
        expect(took).toBeLessThan(2000);
        // Left out now: the next read goes to the primary at once.
        const again = performance.now();
        expect(await reads.query<Rows>(SOURCE, [])).toEqual([{ source: 'primary' }]);
        expect(performance.now() - again).toBeLessThan(250);
      } finally {
        await silent.close();
      }
    },
  );

  (MYSQL ? it : it.skip)(
    "keeps the replica's query deadline: a read stuck there runs on the primary",
    async () => {
      const reads = new ReadReplica(await withReplica(undefined, { DB_QUERY_TIMEOUT_MS: '400' }));
      const started = performance.now();
      // Sleeps 3 s on the replica's database only.
      const rows = await reads.query<Rows>(
        `SELECT source FROM item WHERE SLEEP(IF(DATABASE() = ?, 3, 0)) = 0`,
        [databaseOf(replica)],
      );
      expect(rows).toEqual([{ source: 'primary' }]);
      expect(performance.now() - started).toBeLessThan(2000);
    },
  );

  it("throws the read's own error as it is, without running it again", async () => {
    const reads = new ReadReplica(MYSQL ? await withReplica() : await open(primary.env));
    let runs = 0;
    await expect(
      reads.read(() => {
        runs++;
        return Promise.reject(new InvalidInputError({ cursor: 'is not a cursor' }));
      }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(runs).toBe(1);
  });
});

const databaseOf = (database: TestDatabase): string =>
  new URL(database.env.DB_URL).pathname.slice(1);

/** A server that accepts connections and never says a word: a host gone silent. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
