import { newId, sqliteDriver } from '@app/core';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
import { OwnerSession } from '../support/session';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../support/test-database';
import {
  isAlive,
  killWorker,
  requireBuiltWorker,
  startWorkerProcess,
  type WorkerProcess,
} from '../support/worker-process';
import {
  deviceToken,
  publishedPassWithDevices,
  startWalletAEnv,
  waitFor,
} from '../support/walleta-env';

/**
 * A worker process killed with SIGKILL halfway through a notification's fan-out: a second
 * worker takes the notification over once the lease runs out and finishes it. No device is
 * lost, and the only devices pushed twice are those whose push the dead worker had made but not
 * recorded yet (its pushes in flight), which the test measures at the kill.
 *
 * The workers are the built `dist/apps/worker/src/main.js` (scripts/test.sh builds it before the
 * tests), real processes that the kernel kills. The test app only sets the scene (pass, devices,
 * notification, with its own worker off) and is closed before the first worker starts, so each
 * worker is the only process on the database: that is what SQLite needs (one process per file,
 * see docs/operations.md), so both dialects run the same test. The test reads the database only while no
 * worker runs.
 */

/**
 * Whom the notification reaches. Each audience stays within one of the worker's batches
 * (5,000 registrations), so the kill lands inside a batch, not between two.
 */
interface Audience {
  name: string;
  /** Devices of the shared pass. */
  shared: number;
  /** Holders of the pass, each with `devicesPerHolder` devices of its own copy. */
  holders: number;
  devicesPerHolder: number;
  /** The first this many holders are the notification's `holderIds`; null: everyone. */
  chosen: number | null;
}

const AUDIENCES: Audience[] = [
  { name: 'the shared pass', shared: 2500, holders: 0, devicesPerHolder: 0, chosen: null },
  { name: "every holder's copy", shared: 0, holders: 2500, devicesPerHolder: 1, chosen: null },
  // The most holderIds a notification takes; the others' devices must get nothing.
  { name: 'chosen holders', shared: 100, holders: 1200, devicesPerHolder: 2, chosen: 1000 },
];
/**
 * Pushes are answered 300 to 900 ms late, so the fan-out takes seconds and answers trickle in
 * (the kill lands among them, not between two waves).
 */
const answerDelay = (n: number) => 300 + ((n * 7919) % 601);
const MOST_ANSWER_DELAY_MS = 900;
/** A test knob: the second worker takes over this soon after the kill. */
const LEASE_MS = 2000;
/**
 * Pushes a worker can have made without their outcome written: ApnsClient's streams (500) plus
 * the outcomes the worker holds before writing them (groups of 100, one group written while the
 * next fills).
 */
const MOST_UNRECORDED = 500 + 2 * 100;

describe.each(AUDIENCES)(
  `A worker killed with SIGKILL mid fan-out to $name (${TEST_DB})`,
  (audience) => {
    let apns: ApnsFake;
    let database: TestDatabase;
    let env: Record<string, string>;
    const workers: WorkerProcess[] = [];

    beforeAll(async () => {
      requireBuiltWorker();
      const walletA = await startWalletAEnv();
      apns = walletA.apns;
      database = await createTestDatabase();
      env = {
        ...walletA.env,
        ...database.env,
        JWT_SECRET: TEST_JWT_SECRET,
        STORAGE_DIR: '/tmp/wps-test-uploads',
        SCHEDULER_INTERVAL_MS: '200',
        WORKER_LEASE_MS: String(LEASE_MS),
        // The lease must outlast a webhook request (config check); no webhooks here.
        WEBHOOK_TIMEOUT_MS: '1000',
      };
    });
    afterAll(async () => {
      for (const worker of workers) await killWorker(worker);
      await database?.drop();
      await apns?.close();
    });

    function startWorker(): WorkerProcess {
      const worker = startWorkerProcess(env);
      workers.push(worker);
      return worker;
    }

    const said = (worker: WorkerProcess, msg: string) =>
      worker.lines.some((line) => line.msg === msg);
    const alive = isAlive;

    /** `count` holders of the pass, through the import API, in externalId order. */
    async function importHolders(
      testApp: TestApp,
      owner: OwnerSession,
      passId: string,
      count: number,
    ): Promise<{ id: string; serial_number: string }[]> {
      if (count === 0) return [];
      const rows = Array.from({ length: count }, (_, i) => ({
        externalId: `member-${String(i).padStart(6, '0')}`,
      }));
      await request(testApp.server)
        .post(`/v1/wallet-pass/${passId}/holders/import`)
        .set(owner.auth)
        .send(rows)
        .expect(200);
      return testApp.app
        .get(DataSource)
        .query('SELECT id, serial_number FROM holder WHERE pass_id = ? ORDER BY external_id', [
          passId,
        ]);
    }

    /** Runs `work` on the test database with a connection of its own, closed afterwards. */
    async function withDatabase<T>(work: (dataSource: DataSource) => Promise<T>): Promise<T> {
      const dataSource = new DataSource(
        database.env.DB_TYPE === 'mysql'
          ? { type: 'mysql', url: database.env.DB_URL, timezone: 'Z' }
          : { type: 'better-sqlite3', database: database.env.DB_PATH, driver: sqliteDriver() },
      );
      await dataSource.initialize();
      try {
        return await work(dataSource);
      } finally {
        await dataSource.destroy();
      }
    }

    it('resumes in another worker: no device lost, none pushed twice beyond those in flight', async () => {
      // The scene, set by an app with its worker off: nothing is delivered until a worker starts.
      const testApp: TestApp = await startTestApp({ ...env, WORKER_ENABLED: 'false' }, database);
      let notificationId: string;
      let tokens: string[];
      let others: string[];
      try {
        const owner = await OwnerSession.start(testApp.server);
        const { pass } = await publishedPassWithDevices(owner, 0);
        const dataSource = testApp.app.get(DataSource);
        // Publishing queued a pass-update push; that is another test's business.
        await dataSource.query("UPDATE wallet_a_push_job SET state = 'done' WHERE pass_id = ?", [
          pass.id,
        ]);
        const holders = await importHolders(testApp, owner, pass.id, audience.holders);
        const now = new Date();
        const registration = (
          n: number,
          copy: { holderId: string; serialNumber: string } | null,
        ) => ({
          id: newId(),
          workspaceId: owner.defaultWorkspaceId,
          passId: pass.id,
          holderId: copy?.holderId ?? null,
          serialNumber: copy?.serialNumber ?? pass.id,
          deviceLibraryId: `sigkill-${n}`,
          pushToken: deviceToken(8_000_000 + n),
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        });
        const rows = Array.from({ length: audience.shared }, (_, i) => registration(i, null));
        // Shared devices are reached only when everyone is.
        const reached = rows.map(() => audience.chosen === null);
        holders.forEach((holder, h) => {
          for (let d = 0; d < audience.devicesPerHolder; d++) {
            rows.push(
              registration(rows.length, {
                holderId: holder.id,
                serialNumber: holder.serial_number,
              }),
            );
            reached.push(audience.chosen === null || h < audience.chosen);
          }
        });
        tokens = rows.filter((_, i) => reached[i]).map((row) => row.pushToken);
        others = rows.filter((_, i) => !reached[i]).map((row) => row.pushToken);
        for (let from = 0; from < rows.length; from += 500) {
          await dataSource.getRepository(Registration).insert(rows.slice(from, from + 500));
        }
        const holderIds =
          audience.chosen === null
            ? {}
            : { holderIds: holders.slice(0, audience.chosen).map((h) => h.id) };
        const created = await request(testApp.server)
          .post('/v1/wallet-pass/notifications')
          .set(owner.auth)
          .send({
            passSerialNumber: pass.id,
            notificationName: 'Crash',
            notificationMessage: 'Hi',
            ...holderIds,
          })
          .expect(201);
        notificationId = (created.body as { id: string }).id;
      } finally {
        await testApp.app.close();
      }
      const DEVICES = tokens.length;
      apns.reset();
      for (let n = 0; n < DEVICES * 2; n++) apns.delay(answerDelay(n), { times: 1 });

      // The first worker: killed once about half the devices were pushed.
      const first = startWorker();
      await waitFor(
        () => apns.pushes.length >= DEVICES / 2 || !alive(first),
        'half the pushes (is dist/ built from this source?)',
        60_000,
      );
      expect(alive(first)).toBe(true);
      first.process.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      expect(first.process.signalCode).toBe('SIGKILL');
      const pushedAtKill = apns.pushes.length;
      // Pushes the fake was answering as the process died count as made by it (APNs may have
      // delivered them); after that, its streams are gone with its connection.
      await new Promise((resolve) => setTimeout(resolve, MOST_ANSWER_DELAY_MS + 200));
      const pushedByFirst = apns.pushes.length;

      const atKill = await withDatabase(async (dataSource) => {
        const [notification] = await dataSource.query<{ status: string; leased_by: string }[]>(
          'SELECT status, leased_by FROM notification WHERE id = ?',
          [notificationId],
        );
        const [recorded] = await dataSource.query<{ n: number | string }[]>(
          "SELECT COUNT(*) AS n FROM notification_delivery WHERE notification_id = ? AND outcome = 'sent'",
          [notificationId],
        );
        return { ...notification, recorded: Number(recorded.n) };
      });
      // Killed mid fan-out: some recorded, not all pushed.
      expect(atKill.status).toBe('Processing');
      expect(atKill.recorded).toBeGreaterThan(0);
      expect(pushedByFirst).toBeLessThan(DEVICES);
      // Pushed but not recorded when it died: the only devices another worker may push again.
      const inFlight = pushedByFirst - atKill.recorded;
      expect(inFlight).toBeGreaterThanOrEqual(0);
      expect(inFlight).toBeLessThanOrEqual(MOST_UNRECORDED);

      // The second worker: takes over when the lease runs out and finishes.
      const killedAt = Date.now();
      const second = startWorker();
      await waitFor(
        () => said(second, 'Notification delivered') || !alive(second),
        'the second worker to finish the notification',
        45_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; worker stderr: ${second.stderr.join('\n')}`);
      });
      const resumedIn = Date.now() - killedAt;
      second.process.kill('SIGTERM');
      await second.exited;

      const pushes = new Map<string, number>();
      for (const push of apns.pushes) pushes.set(push.token, (pushes.get(push.token) ?? 0) + 1);
      const lost = tokens.filter((token) => !pushes.has(token));
      const twice = [...pushes.values()].filter((n) => n === 2).length;
      const more = [...pushes.values()].filter((n) => n > 2).length;
      expect(lost).toEqual([]);
      expect(others.filter((token) => pushes.has(token))).toEqual([]);
      expect(more).toBe(0);
      expect(twice).toBeLessThanOrEqual(inFlight);
      expect(apns.pushes).toHaveLength(DEVICES + twice);

      const final = await withDatabase(async (dataSource) => {
        const [notification] = await dataSource.query<Record<string, unknown>[]>(
          'SELECT status, apple_sent_count, total_sent_count, leased_by, attempts FROM notification WHERE id = ?',
          [notificationId],
        );
        const [deliveries] = await dataSource.query<Record<string, number | string>[]>(
          "SELECT COUNT(*) AS n, COUNT(DISTINCT registration_id) AS devices, SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END) AS sent FROM notification_delivery WHERE notification_id = ?",
          [notificationId],
        );
        return { notification, deliveries };
      });
      // Each device recorded once, every one sent; WalletB is not set up, so it is the failed side.
      expect(Object.values(final.deliveries).map(Number)).toEqual([DEVICES, DEVICES, DEVICES]);
      expect(final.notification).toMatchObject({ status: 'AppleSuccessGoogleFailed' });
      expect(Number(final.notification.apple_sent_count)).toBe(DEVICES);
      expect(Number(final.notification.total_sent_count)).toBe(DEVICES);
      expect(final.notification.leased_by).not.toBe(atKill.leased_by);
      expect(Number(final.notification.attempts)).toBe(2);

      process.stdout.write(
        `[faults] worker SIGKILL, ${audience.name} (${TEST_DB}): devices=${DEVICES} pushed at the kill=${pushedAtKill} ` +
          `(${pushedByFirst} with the answers under way) ` +
          `recorded at the kill=${atKill.recorded} in flight (pushed, unrecorded)=${inFlight} ` +
          `pushes in all=${apns.pushes.length} devices pushed twice=${twice} lost=${lost.length} ` +
          `deliveries recorded=${Number(final.deliveries.n)} status=${String(final.notification.status)} ` +
          `apple sent=${Number(final.notification.apple_sent_count)}; ` +
          `second worker finished ${resumedIn} ms after the kill (lease ${LEASE_MS} ms)\n`,
      );
    });
  },
);
