import { newId } from '@app/core';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
import { OwnerSession } from '../support/session';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';
import {
  deviceToken,
  publishedPassWithDevices,
  startWalletAEnv,
  waitFor,
} from '../support/walleta-env';
import {
  isAlive,
  killWorker,
  requireBuiltWorker,
  startWorkerProcess,
  type WorkerProcess,
} from '../support/worker-process';

/**
 * One notification's fan-out shared by two worker processes: the 25,000 devices are cut into
 * shards of 2,500 (NOTIFICATION_SHARD_SIZE), each process pushes some of them, no device is
 * pushed twice or left out and the counts are exact; then one of the two is killed with SIGKILL
 * mid-shard, and the other finishes its shard and the notification: nothing is lost, and the
 * only devices pushed twice are those the dead one had pushed but not recorded (the same bound
 * as test/faults/worker-sigkill.e2e-spec.ts).
 *
 * The workers are the built `dist/apps/worker/src/main.js`. Two processes on one database:
 * MariaDB/MySQL only (SQLite allows one process per file, see docs/operations.md). The API (this process,
 * its worker off) only sets the scene and reads the database.
 */

const DEVICES = 25_000;
const SHARD_SIZE = 2500;
const SHARDS = DEVICES / SHARD_SIZE;
/**
 * Longer than a shard's push takes here (2,500 pushes, 500 at a time, answered within 0.5 s),
 * so no live worker's shard is taken over; short enough that the kill is got over quickly.
 */
const LEASE_MS = 5000;
/** Pushes a worker can have made without their outcome written (as in worker-sigkill). */
const MOST_UNRECORDED = 500 + 2 * 100;
const MOST_ANSWER_DELAY_MS = 500;
const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];

/** The pid in a `leased_by` (`host:pid:random`). */
const pidOf = (leasedBy: string | null): number | null =>
  leasedBy === null ? null : Number(leasedBy.split(':').at(-2));

(TEST_DB === 'mysql' ? describe : describe.skip)(
  `One notification's shards shared by two worker processes (${TEST_DB})`,
  () => {
    let apns: ApnsFake;
    let testApp: TestApp;
    let owner: OwnerSession;
    let dataSource: DataSource;
    let env: Record<string, string>;
    let passId: string;
    /** Registration id → push token, and every token. */
    const tokenOf = new Map<string, string>();
    let tokens: string[];
    const workers: WorkerProcess[] = [];

    beforeAll(async () => {
      requireBuiltWorker();
      const walletA = await startWalletAEnv();
      apns = walletA.apns;
      testApp = await startTestApp({ ...walletA.env, WORKER_ENABLED: 'false' });
      env = {
        ...walletA.env,
        ...testApp.database.env,
        JWT_SECRET: TEST_JWT_SECRET,
        STORAGE_DIR: '/tmp/wps-test-uploads',
        SCHEDULER_INTERVAL_MS: '200',
        WORKER_LEASE_MS: String(LEASE_MS),
        // The lease must outlast a webhook request (config check); no webhooks here.
        WEBHOOK_TIMEOUT_MS: '1000',
        NOTIFICATION_SHARD_SIZE: String(SHARD_SIZE),
        ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
      };
      owner = await OwnerSession.start(testApp.server);
      dataSource = testApp.app.get(DataSource);
      const { pass } = await publishedPassWithDevices(owner, 0);
      passId = pass.id;
      // Publishing queued a pass-update push; that is another test's business.
      await dataSource.query("UPDATE wallet_a_push_job SET state = 'done' WHERE pass_id = ?", [
        passId,
      ]);
      const now = new Date();
      const rows = Array.from({ length: DEVICES }, (_, n) => ({
        id: newId(),
        workspaceId: owner.defaultWorkspaceId,
        passId,
        holderId: null,
        serialNumber: passId,
        deviceLibraryId: `sharded-${n}`,
        pushToken: deviceToken(9_000_000 + n),
        createdTime: now,
        updatedTime: now,
        removedTime: null,
      }));
      for (const row of rows) tokenOf.set(row.id, row.pushToken);
      tokens = rows.map((row) => row.pushToken);
      for (let from = 0; from < rows.length; from += 1000) {
        await dataSource.getRepository(Registration).insert(rows.slice(from, from + 1000));
      }
    });
    afterAll(async () => {
      for (const worker of workers) await killWorker(worker);
      await testApp?.close();
      await apns?.close();
    });

    function startWorker(): WorkerProcess {
      const worker = startWorkerProcess(env);
      workers.push(worker);
      return worker;
    }

    async function notify(name: string): Promise<string> {
      const created = await request(testApp.server)
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: passId, notificationName: name, notificationMessage: 'Hi' })
        .expect(201);
      return (created.body as { id: string }).id;
    }

    const notificationRow = async (id: string) =>
      (
        await dataSource.query<Record<string, unknown>[]>(
          'SELECT status, apple_sent_count, total_sent_count, leased_by, attempts, shard_count FROM notification WHERE id = ?',
          [id],
        )
      )[0];

    const shardRows = (id: string) =>
      dataSource.query<
        { position: number; state: string; leased_by: string | null; attempts: number }[]
      >(
        'SELECT position, state, leased_by, attempts FROM notification_shard WHERE notification_id = ? ORDER BY position',
        [id],
      );

    const recordedIds = async (id: string) =>
      (
        await dataSource.query<{ registration_id: string }[]>(
          'SELECT registration_id FROM notification_delivery WHERE notification_id = ?',
          [id],
        )
      ).map((row) => row.registration_id);

    async function waitForFinal(id: string, what: string, survivors: WorkerProcess[]) {
      await waitFor(
        async () => FINAL.includes(String((await notificationRow(id)).status)),
        what,
        90_000,
      ).catch((error: unknown) => {
        throw new Error(
          `${String(error)}; workers' stderr: ${survivors.map((w) => w.stderr.join('\n')).join('\n---\n')}`,
        );
      });
    }

    function pushCounts(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const push of apns.pushes) counts.set(push.token, (counts.get(push.token) ?? 0) + 1);
      return counts;
    }

    async function expectExactCounts(id: string) {
      const final = await notificationRow(id);
      expect(final).toMatchObject({ status: 'AppleSuccessGoogleFailed' });
      expect(Number(final.apple_sent_count)).toBe(DEVICES);
      expect(Number(final.total_sent_count)).toBe(DEVICES);
      expect(Number(final.shard_count)).toBe(SHARDS);
      const [deliveries] = await dataSource.query<Record<string, number | string>[]>(
        "SELECT COUNT(*) AS n, COUNT(DISTINCT registration_id) AS devices, SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END) AS sent FROM notification_delivery WHERE notification_id = ?",
        [id],
      );
      expect(Object.values(deliveries).map(Number)).toEqual([DEVICES, DEVICES, DEVICES]);
      return final;
    }

    it('two workers each push some shards: every device once, none lost, counts exact', async () => {
      apns.reset();
      // Answers 50-150 ms late: a shard takes a few hundred ms, the fan-out seconds.
      for (let n = 0; n < DEVICES; n++) apns.delay(50 + ((n * 7919) % 101), { times: 1 });
      const id = await notify('Shared');
      const a = startWorker();
      const b = startWorker();
      await waitForFinal(id, 'the notification to finish', [a, b]);
      expect(isAlive(a) && isAlive(b)).toBe(true);

      const counts = pushCounts();
      const lost = tokens.filter((token) => !counts.has(token));
      const twice = [...counts.values()].filter((n) => n > 1).length;
      expect(lost).toEqual([]);
      expect(twice).toBe(0);
      expect(apns.pushes).toHaveLength(DEVICES);
      await expectExactCounts(id);

      // Each process pushed some shards, each shard once (claimed once, done).
      const shards = await shardRows(id);
      expect(shards.map((s) => s.position)).toEqual([...Array(SHARDS).keys()]);
      expect(shards.every((s) => s.state === 'done' && Number(s.attempts) === 1)).toBe(true);
      const byPid = new Map<number | null, number>();
      for (const shard of shards) {
        const pid = pidOf(shard.leased_by);
        byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
      }
      const taken = [a, b].map((w) => byPid.get(w.process.pid ?? -1) ?? 0);
      expect(taken[0] + taken[1]).toBe(SHARDS);
      expect(Math.min(...taken)).toBeGreaterThan(0);
      // Their logs say the same (once the pipes delivered the last lines).
      const logged = () =>
        [a, b].map(
          (w) =>
            w.lines.filter(
              (line) => line.msg === 'Notification shard pushed' && line.notificationId === id,
            ).length,
        );
      await waitFor(() => logged().join() === taken.join(), 'the log lines', 5000).catch(
        () => undefined,
      );
      expect(logged()).toEqual(taken);

      process.stdout.write(
        `[faults] sharded fan-out (${TEST_DB}): devices=${DEVICES} shards=${SHARDS} of ${SHARD_SIZE}; ` +
          `shards pushed per worker=${taken.join(' / ')}; pushes=${apns.pushes.length} twice=${twice} lost=${lost.length}\n`,
      );
      await Promise.all([a, b].map((w) => killWorker(w)));
    });

    it('a worker killed mid-shard: the other finishes, nothing lost, pushed twice only what was in flight', async () => {
      apns.reset();
      // Answers 200-500 ms late: a shard takes about 2 s, and the kill lands among the answers.
      for (let n = 0; n < DEVICES * 2; n++) apns.delay(200 + ((n * 7919) % 301), { times: 1 });
      const id = await notify('Crash');
      const a = startWorker();
      const b = startWorker();
      // Kill the worker holding the notification, once it pushes a shard of its own and a third
      // of the devices are pushed: the other must take over its shard and the notification.
      let victim: WorkerProcess | undefined;
      await waitFor(
        async () => {
          if (apns.pushes.length < DEVICES / 3) return false;
          const notification = await notificationRow(id);
          const holder = pidOf(notification.leased_by as string | null);
          const open = (await shardRows(id)).filter((s) => s.state === 'open');
          const other = open.some((s) => s.leased_by !== null && pidOf(s.leased_by) !== holder);
          victim = [a, b].find((w) => w.process.pid === holder);
          return (
            victim !== undefined &&
            other &&
            open.some((s) => s.leased_by !== null && pidOf(s.leased_by) === holder)
          );
        },
        'both workers mid-shard (is dist/ built from this source?)',
        60_000,
      );
      const dead = victim!;
      const survivor = dead === a ? b : a;
      dead.process.kill('SIGKILL');
      expect(await dead.exited).toBeNull();
      // Recorded just after the kill: the dead worker's unrecorded pushes are not among them, and
      // the survivor pushes them again only once the dead one's lease ran out, seconds later.
      const recordedAtKill = new Set(await recordedIds(id));
      const atKill = await notificationRow(id);
      expect(atKill.status).toBe('Processing');
      // Pushes the fake was answering as the process died count as made before the kill.
      await new Promise((resolve) => setTimeout(resolve, MOST_ANSWER_DELAY_MS + 200));
      const pushedByThen = new Set(apns.pushes.map((push) => push.token));
      const recordedTokens = new Set([...recordedAtKill].map((r) => tokenOf.get(r)));
      // Pushed, not recorded: a bound on what the dead worker had in flight (the survivor's own
      // unrecorded pushes are in it too, and it records them).
      const unrecorded = [...pushedByThen].filter((token) => !recordedTokens.has(token)).length;
      expect(recordedAtKill.size).toBeGreaterThan(0);
      expect(pushedByThen.size).toBeLessThan(DEVICES);

      const killedAt = Date.now();
      await waitForFinal(id, 'the survivor to finish the notification', [survivor]);
      const finishedIn = Date.now() - killedAt;
      expect(isAlive(survivor)).toBe(true);

      const counts = pushCounts();
      const lost = tokens.filter((token) => !counts.has(token));
      const twice = [...counts.values()].filter((n) => n === 2).length;
      const more = [...counts.values()].filter((n) => n > 2).length;
      expect(lost).toEqual([]);
      expect(more).toBe(0);
      expect(twice).toBeLessThanOrEqual(unrecorded);
      expect(twice).toBeLessThanOrEqual(MOST_UNRECORDED);
      expect(apns.pushes).toHaveLength(DEVICES + twice);
      const final = await expectExactCounts(id);
      // The survivor took the notification over and finished it (a second claim).
      expect(pidOf(final.leased_by as string | null)).toBe(survivor.process.pid);
      expect(Number(final.attempts)).toBe(2);
      const shards = await shardRows(id);
      expect(shards.every((s) => s.state === 'done')).toBe(true);
      // The dead worker's shard was finished by the survivor, claimed a second time.
      const takenOver = shards.filter((s) => Number(s.attempts) === 2);
      expect(takenOver.length).toBeGreaterThan(0);
      expect(takenOver.every((s) => pidOf(s.leased_by) === survivor.process.pid)).toBe(true);

      process.stdout.write(
        `[faults] sharded fan-out, a worker SIGKILLed mid-shard (${TEST_DB}): devices=${DEVICES} ` +
          `recorded at the kill=${recordedAtKill.size} pushed by then=${pushedByThen.size} ` +
          `pushed, unrecorded=${unrecorded} pushes in all=${apns.pushes.length} ` +
          `devices pushed twice=${twice} lost=${lost.length} shards taken over=${takenOver.length}; ` +
          `the survivor finished ${finishedIn} ms after the kill (lease ${LEASE_MS} ms)\n`,
      );
    });
  },
);
