import { ReadReplica, REPLICA_REST_MS } from '@app/core';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import type { ApnsFake } from './fakes/apns-fake';
import { TcpProxy } from './fakes/tcp-proxy';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB, type TestDatabase } from './support/test-database';
import {
  deviceToken,
  packageAuthToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAEnv,
} from './support/walleta-env';
import { closedPort } from './support/closed-port';

/**
 * Read replicas against a real MariaDB primary and replica: a throw-away pair on ports of their
 * own, replicating through the binary log, that scripts/test.sh starts for the MariaDB run
 * (scripts/replica-pair.sh) and hands over in TEST_REPLICA_PRIMARY_URL and TEST_REPLICA_URL.
 *
 * The app's DB_URL is the primary. Its DB_READ_URLS is the replica, reached through a TCP proxy
 * the test can silence or cut, as a user with SELECT only: a write sent there would fail, and
 * the replica counts it (Access_denied_errors). The replica's replication is stopped and started
 * to show where each read was answered: a holder created while it is stopped is on the primary
 * and missing from exactly the reads that go to the replica (holder list, audience size,
 * statistics) until it starts again.
 */

const PRIMARY_URL = process.env.TEST_REPLICA_PRIMARY_URL;
const REPLICA_URL = process.env.TEST_REPLICA_URL;
const skipped =
  TEST_DB !== 'mysql'
    ? 'the SQLite run has no replicas'
    : PRIMARY_URL === undefined || REPLICA_URL === undefined
      ? 'no primary and replica pair: scripts/test.sh starts one (scripts/replica-pair.sh) ' +
        'where mariadbd and mariadb-install-db are installed'
      : null;

// The SQLite run skips it as a matter of course; a MariaDB run without the pair says why.
if (skipped !== null && TEST_DB === 'mysql') {
  console.warn(`test/read-replicas.e2e-spec.ts is skipped: ${skipped}`);
}

/** Short deadlines, so the replica's outages are seen quickly. */
const DEADLINES = {
  DB_CONNECT_TIMEOUT_MS: '1000',
  DB_ACQUIRE_TIMEOUT_MS: '1000',
  DB_QUERY_TIMEOUT_MS: '1500',
};
/** A read the replica cannot serve answers from the primary within one deadline and a margin. */
const FALLBACK_BOUND_MS = 1500 + 1000;
/** How long replication of one write may take before the test gives up. */
const REPLICATED_WITHIN_MS = 10_000;
const READER = { user: 'wps_reader', password: 'reader-password-1' };
const AUDIENCE = { tag: 'member' };

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  appleInstalledCount: number;
}

interface Reads {
  holders: { id: string; appleInstalledCount: number }[];
  size: { holders: number; walletADevices: number };
  appleInstalls: number;
}

(skipped === null ? describe : describe.skip)(
  `Read replicas on a MariaDB primary and replica (${skipped ?? TEST_DB})`,
  () => {
    let primary: Connection;
    let replica: Connection;
    let proxy: TcpProxy;
    let apns: ApnsFake;
    let walletAEnv: Record<string, string>;
    let database: TestDatabase;
    let testApp: TestApp;
    let owner: OwnerSession;
    let passId: string;
    let deniedBefore: number;
    let devices = 0;
    const apps: TestApp[] = [];

    beforeAll(async () => {
      primary = await createConnection(PRIMARY_URL!);
      replica = await createConnection(REPLICA_URL!);
      const name = `wps_replicas_${process.pid}_${randomBytes(4).toString('hex')}`;
      // Made on the primary; the replica gets the database and the user from the binary log.
      await primary.query(
        `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
      await primary.query(`CREATE USER IF NOT EXISTS '${READER.user}'@'%' IDENTIFIED BY ?`, [
        READER.password,
      ]);
      await primary.query(`GRANT SELECT ON *.* TO '${READER.user}'@'%'`);
      await until(async () => (await rows(replica, 'SHOW DATABASES LIKE ?', [name])).length === 1);
      deniedBefore = await deniedOnReplica();

      const replicaServer = new URL(REPLICA_URL!);
      proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(replicaServer.port) });
      const primaryUrl = withPath(PRIMARY_URL!, name);
      database = {
        env: { DB_TYPE: 'mysql', DB_URL: primaryUrl },
        drop: async () => void (await primary.query(`DROP DATABASE IF EXISTS \`${name}\``)),
      };
      const walletA = await startWalletAEnv();
      apns = walletA.apns;
      walletAEnv = walletA.env;
      testApp = await startTestApp(
        {
          ...walletAEnv,
          ...DEADLINES,
          DB_READ_URLS: readerUrl(proxy.port, name),
          RATE_LIMIT_PER_MINUTE: '1000000',
        },
        database,
      );
      apps.push(testApp);
      owner = await OwnerSession.start(testApp.server);
      passId = (await publishedPassWithDevices(owner, 0)).pass.id;
    });
    afterAll(async () => {
      proxy?.restore();
      await replica?.query('START SLAVE').catch(() => undefined);
      // The app that owns the database drops it: last.
      for (const app of apps.reverse()) await app.close();
      await proxy?.close();
      await apns?.close();
      await replica?.end();
      await primary?.end();
    });

    const http = (app = testApp) => request(app.server);

    /** The three reads that go to a replica, as the API answers them. */
    async function reads(app = testApp): Promise<Reads> {
      const list = await http(app)
        .get(`/v1/wallet-pass/${passId}/holders`)
        .set(owner.auth)
        .expect(200);
      const size = await http(app)
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(owner.auth)
        .send({ audience: AUDIENCE })
        .expect(200);
      const stats = await http(app)
        .get(`/v1/wallet-pass/${passId}/stats`)
        .set(owner.auth)
        .expect(200);
      const days = (stats.body as { days: { appleInstalls: number }[] }).days;
      const { holders: matched, walletADevices } = size.body as Reads['size'];
      return {
        holders: (list.body as { items: HolderBody[] }).items.map(
          ({ id, appleInstalledCount }) => ({ id, appleInstalledCount }),
        ),
        size: { holders: matched, walletADevices },
        appleInstalls: days.reduce((sum, day) => sum + day.appleInstalls, 0),
      };
    }

    /** The ids of the pass's holder list, newest first. */
    const holderIds = async (): Promise<string[]> =>
      (
        (await http().get(`/v1/wallet-pass/${passId}/holders`).set(owner.auth).expect(200))
          .body as { items: HolderBody[] }
      ).items.map((holder) => holder.id);
    const ids = (made: HolderBody[]): string[] => made.map((holder) => holder.id).reverse();

    /** `work` answers `expected`, and at once: no deadline waited out. */
    async function expectFast(work: () => Promise<unknown>, expected: unknown): Promise<void> {
      const { value, ms } = await timed(work);
      expect(value).toEqual(expected);
      expect(ms).toBeLessThan(1000);
    }

    /** A holder in the audience, created through the API, and a WalletA device that adds it. */
    async function holderWithDevice(): Promise<HolderBody> {
      const holder = (
        await http()
          .post(`/v1/wallet-pass/${passId}/holders`)
          .set(owner.auth)
          .send({ externalId: `member-${++devices}`, tags: ['member'] })
          .expect(201)
      ).body as HolderBody;
      const token = await packageAuthToken(
        testApp.server,
        `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
      );
      await http()
        .post(
          `/passkit/v1/devices/replica-device-${devices}/registrations/${PASS_TYPE_ID}/${holder.serialNumber}`,
        )
        .set('Authorization', `ApplePass ${token}`)
        .send({ pushToken: deviceToken(7000 + devices) })
        .expect(201);
      return holder;
    }

    /** What the reads should answer once they see `holders` (each with one device). */
    const seeing = (holders: HolderBody[]): Reads => ({
      holders: holders.map(({ id }) => ({ id, appleInstalledCount: 1 })).reverse(),
      size: { holders: holders.length, walletADevices: holders.length },
      appleInstalls: holders.length,
    });

    const onPrimary = async (holder: HolderBody): Promise<number> =>
      (await rows(primary, `SELECT id FROM \`${dbName()}\`.holder WHERE id = ?`, [holder.id]))
        .length;
    const onReplica = async (holder: HolderBody): Promise<number> =>
      (await rows(replica, `SELECT id FROM \`${dbName()}\`.holder WHERE id = ?`, [holder.id]))
        .length;
    const dbName = (): string => new URL(database.env.DB_URL).pathname.slice(1);

    async function deniedOnReplica(): Promise<number> {
      const [row] = await rows(replica, "SHOW GLOBAL STATUS LIKE 'Access_denied_errors'");
      return Number(row.Value);
    }

    const holders: HolderBody[] = [];

    it('starts on the primary with the replica as DB_READ_URLS', async () => {
      expect(testApp.app.get(ReadReplica).configured).toBe(true);
      await http().get('/health').expect(200);
      // The schema, made by the migrations on the primary, reached the replica.
      await until(
        async () =>
          (await rows(replica, `SHOW TABLES FROM \`${dbName()}\` LIKE 'pass_daily_stats'`))
            .length === 1,
      );
    });

    it('shows a holder created through the API in the list, the size and the statistics once replicated', async () => {
      holders.push(await holderWithDevice());
      await until(async () => isDeepStrictEqual(await reads(), seeing(holders)));
      expect(await reads()).toEqual(seeing(holders));
    });

    it('reads them on the replica: a holder made while replication is stopped shows once it resumes', async () => {
      await replica.query('STOP SLAVE');
      try {
        const late = await holderWithDevice();
        // On the primary, with its device (the API wrote both); not on the replica.
        expect(await onPrimary(late)).toBe(1);
        expect(await onReplica(late)).toBe(0);
        // The list, the size and the statistics do not show it, now or a moment later.
        expect(await reads()).toEqual(seeing(holders));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await reads()).toEqual(seeing(holders));
        // Every other read is the primary's: the holder itself answers at once.
        await http()
          .get(`/v1/wallet-pass/${passId}/holders/${late.id}`)
          .set(owner.auth)
          .expect(200);
        holders.push(late);
      } finally {
        await replica.query('START SLAVE');
      }
      await until(async () => isDeepStrictEqual(await reads(), seeing(holders)));
    });

    it('never writes to the replica', async () => {
      // Passes, holders, registrations, events and counters were written, migrations ran: the
      // replica refused nothing, so nothing tried to write there.
      expect(await deniedOnReplica()).toBe(deniedBefore);
      // A write the app's replica user tried would have been refused and counted.
      const reader = await createConnection({ ...connectionOf(REPLICA_URL!), ...READER });
      try {
        await expect(
          reader.query(`DELETE FROM \`${dbName()}\`.holder WHERE id = ?`, [holders[0].id]),
        ).rejects.toMatchObject({ code: 'ER_TABLEACCESS_DENIED_ERROR' });
      } finally {
        await reader.end();
      }
      expect(await deniedOnReplica()).toBe(deniedBefore + 1);
    });

    it('answers from the primary while the replica is silent or refuses connections, and goes back to it', async () => {
      // A holder only the primary has: an answer that shows it came from the primary.
      await replica.query('STOP SLAVE');
      const fresh = await holderWithDevice();
      const everyone = [...holders, fresh];

      // Silent: a list on a pooled connection waits out the query deadline, one on a new
      // connection the acquire deadline, and each then answers from the primary; once a new
      // connection failed the replica is left out, and the next reads go to the primary at once.
      proxy.silence();
      let listMs = Number.POSITIVE_INFINITY;
      for (let tries = 0; tries < 6 && listMs > 300; tries++) {
        const { value, ms } = await timed(() => holderIds());
        expect(value).toEqual(ids(everyone));
        expect(ms).toBeLessThan(FALLBACK_BOUND_MS);
        listMs = ms;
      }
      expect(listMs).toBeLessThan(300);
      await expectFast(() => reads(), seeing(everyone));

      // Refusing connections: the same, at once.
      proxy.cut();
      await expectFast(() => reads(), seeing(everyone));

      // Back: still left out for the rest of its 10 s, the replica is then tried again and the
      // reads go to it (without the holder, its replication being stopped); then, replication
      // started, with the holder.
      proxy.restore();
      await expectFast(() => reads(), seeing(everyone));
      await until(
        async () => isDeepStrictEqual(await reads(), seeing(holders)),
        REPLICA_REST_MS + REPLICATED_WITHIN_MS,
      );
      await replica.query('START SLAVE');
      holders.push(fresh);
      await until(async () => isDeepStrictEqual(await reads(), seeing(holders)));
    }, 60_000);

    it('answers from the primary when DB_READ_URLS names a port nothing listens on', async () => {
      const other = await startTestApp(
        {
          ...walletAEnv,
          ...DEADLINES,
          DB_READ_URLS: readerUrl(await closedPort(), dbName()),
          DB_MIGRATE_ON_START: 'false',
          WORKER_ENABLED: 'false',
        },
        // The first app's database, which that app drops.
        { env: database.env, drop: () => Promise.resolve() },
      );
      apps.push(other);
      for (let i = 0; i < 3; i++) {
        const { value, ms } = await timed(() => reads(other));
        expect(value).toEqual(seeing(holders));
        expect(ms).toBeLessThan(FALLBACK_BOUND_MS);
      }
    });
  },
);

/** `mysql://wps_reader:…@127.0.0.1:{port}/{database}`: the replica as the app reads it. */
function readerUrl(port: number, database: string): string {
  return `mysql://${READER.user}:${READER.password}@127.0.0.1:${port}/${database}`;
}

function withPath(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

function connectionOf(server: string): { host: string; port: number } {
  const url = new URL(server);
  return { host: url.hostname, port: Number(url.port || 3306) };
}

async function rows(
  connection: Connection,
  sql: string,
  params: unknown[] = [],
): Promise<RowDataPacket[]> {
  const [result] = await connection.query<RowDataPacket[]>(sql, params);
  return result;
}

/** Polls `condition` every 100 ms until it holds; fails after `withinMs`. */
async function until(
  condition: () => Promise<boolean>,
  withinMs = REPLICATED_WITHIN_MS,
): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`Not so within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}
