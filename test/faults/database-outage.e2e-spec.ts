import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import request, { type Response } from 'supertest';
import { driverErrorCode, sqlitePackage, toDomainError, UnavailableError } from '@app/core';
import { NotificationWorker } from '@app/notifications';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
import { TcpProxy } from '../fakes/tcp-proxy';
import { makePng } from '../support/png';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, TEST_DB } from '../support/test-database';
import {
  deviceToken,
  PASS_TYPE_ID,
  passAuthToken,
  startWalletAEnv,
  waitFor,
} from '../support/walleta-env';
import { isErrorBody } from '../support/error-body';

/**
 * The database goes away under load and comes back. Requests meanwhile get 503 UNAVAILABLE
 * in the Error body (never a 500, never a hang), the service recovers without a restart, and
 * every write the load made is either wholly in the database or not at all.
 *
 * MariaDB: the app reaches the server through a TCP proxy the test cuts (the real server is
 * shared with the other suites, so it is not stopped). Cutting resets every connection, as a
 * server that stops does, and refuses new ones until restored.
 *
 * SQLite has no server to stop. Its outage is another process holding the file's write lock
 * (an operator's sqlite3 shell in a transaction, a misplaced second instance): reads go on
 * (WAL), a write waits out busy_timeout (5 s) and then fails with SQLITE_BUSY, which must be a
 * 503 too, and writes go through again once the lock is gone. better-sqlite3 waits
 * synchronously, so the whole process stalls while a write waits: answers due meanwhile are
 * late by up to the length of the lock, which is the bound there. The in-process
 * workers are off in that run, so the writes that run into the lock are the requests' (with
 * them on, a worker's write may be the one that waits out busy_timeout); the suite drives them
 * by hand afterwards. The MariaDB run keeps them on, to see them take up interrupted work.
 */

const MYSQL = TEST_DB === 'mysql';
const BEFORE_MS = 1500;
const FAULT_MS = MYSQL ? 3000 : 7000;
const AFTER_MS = 2500;
const LOOPS = 4;
/** Slower answers count as a hang: mysql2's connectTimeout is 5 s; see above for SQLite. */
const LATENCY_BOUND_MS = MYSQL ? 5000 : FAULT_MS + 2000;
/** After the fault ends, every request answers 2xx again within this long. */
const RECOVERY_BOUND_MS = 3000;
const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];
const WRITES: Op[] = ['create', 'patch', 'register', 'unregister', 'notify'];

type Op = 'create' | 'patch' | 'register' | 'unregister' | 'notify' | 'read' | 'health';

interface Call {
  op: Op;
  startedAt: number;
  endedAt: number;
  status: number;
  body: unknown;
  retryAfter?: string;
}

interface Fault {
  /** Makes the database unavailable for `ms`; resolves with when that began and ended. */
  inject(ms: number): Promise<{ beganAt: number; endedAt: number }>;
  close(): Promise<void>;
}

interface LoadResult {
  calls: Call[];
  faultAt: number;
  endedAt: number;
  creates: { name: string; status: number; id?: string }[];
  patches: { passId: string; status: number }[];
  registrations: { device: string; status: number }[];
  unregistrations: { device: string; status: number }[];
  notifications: { status: number; id?: string }[];
}

const isUnavailableBody = (body: unknown): boolean => isErrorBody(body, 'UNAVAILABLE');
const ok = (status: number) => status >= 200 && status < 300;

describe(`Database outage under load (${TEST_DB})`, () => {
  let testApp: TestApp;
  let apns: ApnsFake;
  let fault: Fault;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    const env: Record<string, string> = {
      ...walletA.env,
      RATE_LIMIT_PER_MINUTE: '1000000',
      SCHEDULER_INTERVAL_MS: '200',
      // Work a worker was doing when the database went away is taken up again after the lease.
      WORKER_LEASE_MS: '2000',
      // The lease must outlast a webhook request (config check); no webhooks here.
      WEBHOOK_TIMEOUT_MS: '1000',
      WORKER_ENABLED: String(MYSQL),
    };
    if (MYSQL) {
      const proxied = await startProxiedApp(env);
      testApp = proxied.testApp;
      fault = proxied.fault;
    } else {
      testApp = await startTestApp(env);
      fault = sqliteWriteLock(sqlitePath(testApp));
    }
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
  });
  afterAll(async () => {
    await fault?.close();
    await testApp?.close();
    await apns?.close();
  });

  const publishedPass = async (passName: string) =>
    (
      await request(testApp.server)
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({
          passName,
          passMetadata: { description: 'Hub', organizationName: 'Brand' },
          notificationHeader: 'News',
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(201)
    ).body as { id: string; slug: string };

  it('answers 503 while the database is away, recovers by itself, and writes nothing by half', async () => {
    const hub = await publishedPass('Outage hub');
    const authToken = await passAuthToken(testApp.server, hub.slug);

    const load = await runLoad({ hubId: hub.id, authToken });
    const { calls, faultAt, endedAt } = load;

    // Every answer is 2xx or 503 with the Error body; none took longer than the bound.
    const others = calls.filter((call) => !ok(call.status) && call.status !== 503);
    expect(others.map((call) => `${call.op} ${call.status} ${JSON.stringify(call.body)}`)).toEqual(
      [],
    );
    const unavailable = calls.filter((call) => call.status === 503);
    for (const call of unavailable) {
      expect(isUnavailableBody(call.body)).toBe(true);
      expect(call.retryAfter).toBe('5');
    }
    const slowest = Math.max(...calls.map((call) => call.endedAt - call.startedAt));
    expect(slowest).toBeLessThan(LATENCY_BOUND_MS);

    let during: Call[];
    if (MYSQL) {
      // No connection at all: everything begun while cut is a 503, /health included.
      during = calls.filter((call) => call.startedAt >= faultAt && call.endedAt <= endedAt);
      expect(during.length).toBeGreaterThan(20);
      expect(during.some((call) => call.op === 'health')).toBe(true);
      expect(during.filter((call) => call.status !== 503)).toEqual([]);
    } else {
      // A write lock: writes that waited past busy_timeout are 503s, reads and /health go on.
      during = calls.filter((call) => call.endedAt > faultAt && call.startedAt < endedAt);
      expect(during.some((call) => WRITES.includes(call.op) && call.status === 503)).toBe(true);
      expect(during.filter((call) => !WRITES.includes(call.op) && !ok(call.status))).toEqual([]);
    }
    const writesDuring = during.filter((call) => WRITES.includes(call.op));

    // Recovered by itself: every request begun a moment after the fault ended is a 2xx.
    const after = calls.filter((call) => call.startedAt >= endedAt);
    const firstOk = Math.min(...after.filter((call) => ok(call.status)).map((c) => c.endedAt));
    expect(firstOk - endedAt).toBeLessThan(RECOVERY_BOUND_MS);
    const settled = after.filter((call) => call.startedAt >= endedAt + RECOVERY_BOUND_MS);
    expect(settled.length).toBeGreaterThan(10);
    expect(settled.filter((call) => !ok(call.status))).toEqual([]);
    const health = await request(testApp.server).get('/health').expect(200);
    expect(health.body).toEqual({ status: 'ok', database: 'up' });

    const checked = await checkNothingHalfWritten(load, hub.id);

    // The worker takes up what the outage interrupted: every notification finishes.
    const dataSource = testApp.app.get(DataSource);
    const worker = testApp.app.get(NotificationWorker);
    await waitFor(
      async () => {
        if (!MYSQL) await worker.tick();
        const rows = await dataSource.query<{ status: string }[]>(
          'SELECT status FROM notification WHERE pass_id = ?',
          [hub.id],
        );
        return rows.every((row) => FINAL.includes(row.status));
      },
      'every notification to finish after the outage',
      20_000,
    );

    const count = (list: Call[], test: (call: Call) => boolean) => list.filter(test).length;
    process.stdout.write(
      `[faults] database outage (${TEST_DB}, ${endedAt - faultAt} ms): requests tried=${calls.length} ` +
        `2xx=${count(calls, (c) => ok(c.status))} 503=${unavailable.length} other=${others.length}; ` +
        `during the outage tried=${during.length} 503=${count(during, (c) => c.status === 503)} ` +
        `(writes ${writesDuring.length}, 503 ${count(writesDuring, (c) => c.status === 503)}), ` +
        `health 503=${count(calls, (c) => c.op === 'health' && c.status === 503)}; ` +
        `slowest answer ${slowest} ms; first 2xx ${firstOk - endedAt} ms after the end; ` +
        `records checked: passes=${checked.passes} shortLinks=${checked.shortLinks} ` +
        `pushJobs=${checked.pushJobs} syncJobs=${checked.syncJobs} ` +
        `registrations=${checked.registrations} notifications=${checked.notifications}; ` +
        `failed writes found whole=${checked.failedWhole} absent=${checked.failedAbsent}\n`,
    );
  });

  (MYSQL ? it.skip : it)(
    "maps a write made stale by another process's commit to 503 (SQLITE_BUSY_SNAPSHOT)",
    async () => {
      // A transaction that read, then writes after another process committed: SQLite refuses
      // the write at once with the extended code SQLITE_BUSY_SNAPSHOT (busy_timeout does not
      // apply). Unregistering a device, for one, reads the registration before locking the pass.
      const path = sqlitePath(testApp);
      const failure = await testApp.app
        .get(DataSource)
        .transaction(async (manager) => {
          await manager.query('SELECT COUNT(*) AS n FROM workspace');
          await lockSqlite(path, 0).released;
          await manager.query('UPDATE workspace SET name = name');
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(driverErrorCode(failure)).toBe('SQLITE_BUSY_SNAPSHOT');
      expect(toDomainError(failure)).toBeInstanceOf(UnavailableError);
    },
  );

  /** Loops of writes and reads; the fault begins after BEFORE_MS and lasts FAULT_MS. */
  async function runLoad(setup: { hubId: string; authToken: string }): Promise<LoadResult> {
    const result: LoadResult = {
      calls: [],
      faultAt: Number.POSITIVE_INFINITY,
      endedAt: Number.POSITIVE_INFINITY,
      creates: [],
      patches: [],
      registrations: [],
      unregistrations: [],
      notifications: [],
    };
    let running = true;
    const http = () => request(testApp.server);

    const call = async (op: Op, send: () => request.Test): Promise<Call> => {
      const startedAt = Date.now();
      let response: Response | undefined;
      try {
        response = await send().timeout(LATENCY_BOUND_MS * 2);
      } catch {
        // A timeout or a dropped connection: recorded as status 0, which fails the test.
      }
      const entry: Call = {
        op,
        startedAt,
        endedAt: Date.now(),
        status: response?.status ?? 0,
        body: response?.body,
        retryAfter: response?.headers['retry-after'],
      };
      result.calls.push(entry);
      return entry;
    };

    const metadata = (tag: string) => ({
      description: 'Card',
      organizationName: 'Brand',
      backFields: [
        {
          key: 'links',
          label: 'Links',
          value: [
            { text: 'Stores', link: `https://brand.example/stores/${tag}` },
            { text: 'Offers', link: `https://brand.example/offers/${tag}`, utmSource: 'wallet' },
          ],
        },
      ],
    });

    let seed = 5_000_000;
    const loop = async (k: number) => {
      const mine: string[] = [];
      const registered: string[] = [];
      for (let i = 0; running; i++) {
        const name = `Outage pass ${k}-${i}`;
        const created = await call('create', () =>
          http()
            .post('/v1/wallet-pass')
            .set(owner.auth)
            .send({
              passName: name,
              passMetadata: metadata(`${k}-${i}`),
              notificationHeader: 'News',
              status: 'Published',
              uploadInfoList: images,
            }),
        );
        const id = ok(created.status) ? (created.body as { id: string }).id : undefined;
        result.creates.push({ name, status: created.status, id });
        if (id !== undefined) mine.push(id);

        if (mine.length > 0) {
          const passId = mine[i % mine.length];
          const patched = await call('patch', () =>
            http()
              .patch(`/v1/wallet-pass/${passId}`)
              .set(owner.auth)
              .send({
                passName: `Outage pass ${passId}`,
                passMetadata: metadata(`${k}-${i}-patched`),
              }),
          );
          result.patches.push({ passId, status: patched.status });
        }

        const device = `outage-${k}-${i}`;
        const token = deviceToken(++seed);
        const registration = await call('register', () =>
          http()
            .post(`/passkit/v1/devices/${device}/registrations/${PASS_TYPE_ID}/${setup.hubId}`)
            .set('Authorization', `ApplePass ${setup.authToken}`)
            .send({ pushToken: token }),
        );
        result.registrations.push({ device, status: registration.status });
        if (ok(registration.status)) registered.push(device);

        if (i % 3 === 2 && registered.length > 0) {
          const gone = registered.shift()!;
          const unregistration = await call('unregister', () =>
            http()
              .delete(`/passkit/v1/devices/${gone}/registrations/${PASS_TYPE_ID}/${setup.hubId}`)
              .set('Authorization', `ApplePass ${setup.authToken}`),
          );
          result.unregistrations.push({ device: gone, status: unregistration.status });
          if (!ok(unregistration.status)) registered.push(gone);
        }

        if (i % 4 === 3) {
          const sent = await call('notify', () =>
            http()
              .post('/v1/wallet-pass/notifications')
              .set(owner.auth)
              .send({
                passSerialNumber: setup.hubId,
                notificationName: `Outage ${k}-${i}`,
                notificationMessage: `Message ${k}-${i}`,
              }),
          );
          result.notifications.push({
            status: sent.status,
            id: ok(sent.status) ? (sent.body as { id: string }).id : undefined,
          });
        }

        await call('read', () => http().get(`/v1/wallet-pass/${setup.hubId}`).set(owner.auth));
      }
    };
    const probe = async () => {
      while (running) {
        await call('health', () => http().get('/health'));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const loops = [probe(), ...Array.from({ length: LOOPS }, (_, k) => loop(k))];
    await new Promise((resolve) => setTimeout(resolve, BEFORE_MS));
    const window = await fault.inject(FAULT_MS);
    result.faultAt = window.beganAt;
    result.endedAt = window.endedAt;
    await new Promise((resolve) => setTimeout(resolve, AFTER_MS + RECOVERY_BOUND_MS));
    running = false;
    await Promise.all(loops);
    return result;
  }

  /**
   * Each change of a pass is one transaction: the pass row (version + 1), a short link per
   * back-field link, a WalletA push job for that version and a WalletB sync job. So for every
   * pass the load made, whatever its requests answered: version v ⇔ push jobs for versions
   * 1..v, v sync jobs, 2·v short links, and its metadata naming short links of its own. The
   * hub pass's counters equal its registrations. A failed request's write is there whole or
   * not at all.
   */
  async function checkNothingHalfWritten(
    load: LoadResult,
    hubId: string,
  ): Promise<{
    passes: number;
    shortLinks: number;
    pushJobs: number;
    syncJobs: number;
    registrations: number;
    notifications: number;
    failedWhole: number;
    failedAbsent: number;
  }> {
    const dataSource = testApp.app.get(DataSource);
    const workspace = owner.defaultWorkspaceId;
    const passes = await dataSource.query<
      { id: string; pass_name: string; version: number; pass_metadata: string }[]
    >(
      "SELECT id, pass_name, version, pass_metadata FROM pass WHERE workspace_id = ? AND id <> ? AND pass_name LIKE 'Outage pass %'",
      [workspace, hubId],
    );
    const allPassIds = new Set(
      (
        await dataSource.query<{ id: string }[]>('SELECT id FROM pass WHERE workspace_id = ?', [
          workspace,
        ])
      ).map((row) => row.id),
    );
    const shortLinks = await dataSource.query<{ id: string; pass_id: string }[]>(
      'SELECT id, pass_id FROM short_link WHERE workspace_id = ?',
      [workspace],
    );
    const pushJobs = await dataSource.query<{ pass_id: string; pass_version: number }[]>(
      'SELECT pass_id, pass_version FROM wallet_a_push_job WHERE workspace_id = ?',
      [workspace],
    );
    const syncJobs = await dataSource.query<{ pass_id: string }[]>(
      'SELECT pass_id FROM wallet_b_sync_job WHERE workspace_id = ?',
      [workspace],
    );

    // Nothing hangs off a pass that is not there.
    expect(shortLinks.filter((link) => !allPassIds.has(link.pass_id))).toEqual([]);
    expect(pushJobs.filter((job) => !allPassIds.has(job.pass_id))).toEqual([]);
    expect(syncJobs.filter((job) => !allPassIds.has(job.pass_id))).toEqual([]);

    const problems: string[] = [];
    for (const pass of passes) {
      const version = Number(pass.version);
      const links = shortLinks.filter((link) => link.pass_id === pass.id);
      const versions = pushJobs
        .filter((job) => job.pass_id === pass.id)
        .map((job) => Number(job.pass_version))
        .sort((a, b) => a - b);
      const syncs = syncJobs.filter((job) => job.pass_id === pass.id).length;
      const metadata = JSON.parse(pass.pass_metadata) as {
        backFields: { value: { shortLinkId?: string }[] }[];
      };
      const named = metadata.backFields.flatMap((field) =>
        field.value.map((value) => value.shortLinkId),
      );
      const linkIds = new Set(links.map((link) => link.id));
      const expectedVersions = Array.from({ length: version }, (_, n) => n + 1);
      if (
        links.length !== 2 * version ||
        syncs !== version ||
        JSON.stringify(versions) !== JSON.stringify(expectedVersions) ||
        named.length !== 2 ||
        !named.every((id) => id !== undefined && linkIds.has(id))
      ) {
        problems.push(
          `${pass.pass_name}: version ${version}, ${links.length} short links, push jobs for ${versions.join(',')}, ${syncs} sync jobs`,
        );
      }
    }
    expect(problems).toEqual([]);

    // Answered 201: there. Failed: there whole (checked above) or absent. Only passes answered
    // 201 are patched (and renamed), so a failed create is looked for under its own name.
    const byName = new Map(passes.map((pass) => [pass.pass_name, pass]));
    const byId = new Set(passes.map((pass) => pass.id));
    let failedWhole = 0;
    let failedAbsent = 0;
    for (const create of load.creates) {
      if (ok(create.status)) expect(byId.has(create.id!)).toBe(true);
      else if (byName.has(create.name)) failedWhole++;
      else failedAbsent++;
    }
    // A PATCH renames the pass after its id, so each pass's version counts the PATCHes it took.
    for (const [passId, results] of groupBy(load.patches, (patch) => patch.passId)) {
      const pass = passes.find((candidate) => candidate.id === passId);
      expect(pass).toBeDefined();
      const succeeded = results.filter((patch) => ok(patch.status)).length;
      const failed = results.length - succeeded;
      const applied = Number(pass!.version) - 1 - succeeded;
      expect(applied).toBeGreaterThanOrEqual(0);
      expect(applied).toBeLessThanOrEqual(failed);
      failedWhole += applied;
      failedAbsent += failed - applied;
    }

    const [counters] = await dataSource.query<Record<string, number | string>[]>(
      'SELECT apple_issued_count, apple_active_count, google_issued_count, google_active_count, total_issued_count, total_active_count FROM pass WHERE id = ?',
      [hubId],
    );
    const registrations = await dataSource.query<
      { device_library_id: string; removed_time: unknown }[]
    >('SELECT device_library_id, removed_time FROM wallet_a_registration WHERE pass_id = ?', [
      hubId,
    ]);
    const active = registrations.filter((row) => row.removed_time === null).length;
    expect(Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, Number(v)]))).toEqual({
      apple_issued_count: registrations.length,
      apple_active_count: active,
      google_issued_count: 0,
      google_active_count: 0,
      total_issued_count: registrations.length,
      total_active_count: active,
    });
    const stored = new Map(registrations.map((row) => [row.device_library_id, row]));
    const unregistered = new Set(
      load.unregistrations.filter((u) => ok(u.status)).map((u) => u.device),
    );
    for (const registration of load.registrations) {
      const row = stored.get(registration.device);
      if (ok(registration.status)) {
        expect(row).toBeDefined();
        expect(row!.removed_time === null).toBe(!unregistered.has(registration.device));
      } else if (row === undefined) failedAbsent++;
      else failedWhole++;
    }

    const notifications = await dataSource.query<{ id: string }[]>(
      'SELECT id FROM notification WHERE pass_id = ?',
      [hubId],
    );
    const notificationIds = new Set(notifications.map((row) => row.id));
    for (const notification of load.notifications) {
      if (notification.id !== undefined) expect(notificationIds.has(notification.id)).toBe(true);
    }
    const failedNotifications = load.notifications.filter((n) => !ok(n.status)).length;
    const extra = notifications.length - load.notifications.filter((n) => ok(n.status)).length;
    expect(extra).toBeGreaterThanOrEqual(0);
    expect(extra).toBeLessThanOrEqual(failedNotifications);
    failedWhole += extra;
    failedAbsent += failedNotifications - extra;

    return {
      passes: passes.length,
      shortLinks: shortLinks.length,
      pushJobs: pushJobs.length,
      syncJobs: syncJobs.length,
      registrations: registrations.length,
      notifications: notifications.length,
      failedWhole,
      failedAbsent,
    };
  }
});

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** A test app whose database connections all go through a proxy the fault cuts. */
async function startProxiedApp(
  env: Record<string, string>,
): Promise<{ testApp: TestApp; fault: Fault }> {
  const database = await createTestDatabase();
  const direct = new URL(database.env.DB_URL);
  const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 3306) });
  const viaProxy = new URL(direct);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const testApp = await startTestApp({ ...env, DB_URL: viaProxy.toString() }, database);
  return {
    testApp,
    fault: {
      async inject(ms) {
        proxy.cut();
        const beganAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, ms));
        const endedAt = Date.now();
        proxy.restore();
        return { beganAt, endedAt };
      },
      close: () => proxy.close(),
    },
  };
}

/**
 * Another process holding the SQLite file's write lock for `ms`, with a write of its own that
 * it commits at the end, as an operator's session would. It keeps its own time: a write
 * blocked in this process stalls this process, so a timer here could not end the fault.
 */
function lockSqlite(
  path: string,
  ms: number,
): { locked: Promise<number>; released: Promise<number> } {
  const script = `
    const [sqlite, path, ms] = process.argv.slice(1);
    const Database = require(sqlite);
    const db = new Database(path);
    db.pragma('busy_timeout = 10000');
    db.exec('BEGIN IMMEDIATE');
    db.prepare('UPDATE workspace SET name = name').run();
    process.stdout.write('locked ' + Date.now() + '\\n');
    setTimeout(() => {
      db.exec('COMMIT');
      db.close();
      process.stdout.write('released ' + Date.now() + '\\n');
    }, Number(ms));
  `;
  const child = spawn(process.execPath, ['-e', script, sqlitePackage(), path, String(ms)], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const said = (word: string) =>
    new Promise<number>((resolve, reject) => {
      lines.on('line', (line) => {
        const [first, at] = line.split(' ');
        if (first === word) resolve(Number(at));
      });
      child.once('exit', () => reject(new Error(`The SQLite lock holder exited before "${word}"`)));
    });
  return { locked: said('locked'), released: said('released') };
}

function sqlitePath(testApp: TestApp): string {
  const db = testApp.config.database;
  if (db.type !== 'sqlite') throw new Error('Not an SQLite test app');
  return db.path;
}

function sqliteWriteLock(path: string): Fault {
  return {
    async inject(ms) {
      const lock = lockSqlite(path, ms);
      lock.released.catch(() => undefined);
      return { beganAt: await lock.locked, endedAt: await lock.released };
    },
    close: () => Promise.resolve(),
  };
}
