import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from './fakes/apns-fake';
import { OwnerSession } from './support/session';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';
import { createTestDatabase, TEST_DB } from './support/test-database';
import { publishedPassWithDevices, startWalletAEnv, waitFor } from './support/walleta-env';
import {
  requireBuiltWorker,
  startWorkerProcess,
  type WorkerProcess,
} from './support/worker-process';

/**
 * A kick in an API process (WORKER_ENABLED=false) wakes a separate worker process through
 * Redis pub/sub: the worker polls only every 60 s here, so a push within a second can only come
 * from the kick. Without REDIS_URL the same setup waits for the poll.
 *
 * Two processes share one database, which SQLite does not allow (one process per file, see
 * docs/operations.md): MariaDB/MySQL only. The worker is the built `dist/apps/worker/src/main.js`.
 */

const DEVICES = 3;
/** Well under the 60 s poll, well over a kick through Redis. */
const WITHIN_MS = 1000;

const redisUrl = process.env.TEST_REDIS_URL;
const skipped =
  TEST_DB !== 'mysql'
    ? 'needs TEST_DB=mysql: the API and the worker process share one database'
    : redisUrl === undefined
      ? 'needs TEST_REDIS_URL (a reachable Redis)'
      : null;

/** The API in this process with its worker off, a worker process beside it, one database. */
interface Scene {
  api: TestApp;
  worker: WorkerProcess;
  owner: OwnerSession;
  passId: string;
  close(): Promise<void>;
}

(skipped === null ? describe : describe.skip)(
  `Kicks wake a separate worker process through Redis (${skipped ?? TEST_DB})`,
  () => {
    let apns: ApnsFake;
    let walletAEnv: Record<string, string>;
    const scenes: Scene[] = [];

    beforeAll(async () => {
      requireBuiltWorker();
      const walletA = await startWalletAEnv();
      apns = walletA.apns;
      walletAEnv = walletA.env;
    });
    afterAll(async () => {
      for (const scene of scenes) await scene.close();
      await apns?.close();
    });

    async function startScene(withRedis: boolean): Promise<Scene> {
      const database = await createTestDatabase();
      const env: Record<string, string> = {
        ...walletAEnv,
        ...database.env,
        JWT_SECRET: TEST_JWT_SECRET,
        STORAGE_DIR: '/tmp/wps-test-uploads',
        // Only a kick can wake the worker within the test's second.
        SCHEDULER_INTERVAL_MS: '60000',
        ...(withRedis
          ? {
              REDIS_URL: redisUrl ?? '',
              REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
            }
          : {}),
      };
      const api = await startTestApp({ ...env, WORKER_ENABLED: 'false' }, database);
      const owner = await OwnerSession.start(api.server);
      const { pass } = await publishedPassWithDevices(owner, DEVICES);
      // Publishing queued a pass-update push; only the notification's pushes are measured.
      await api.app
        .get(DataSource)
        .query("UPDATE wallet_a_push_job SET state = 'done' WHERE pass_id = ?", [pass.id]);

      const worker = startWorkerProcess(env);
      const ready = (message: string) =>
        withRedis
          ? message.startsWith('Listening for worker kicks')
          : message.startsWith('Notifications: polling');
      await waitFor(
        () =>
          worker.lines.some((line) => ready(String(line.msg))) || worker.process.exitCode !== null,
        'the worker process to start',
        30_000,
      );
      if (worker.process.exitCode !== null) {
        throw new Error(`The worker exited: ${worker.stderr.join('\n')}`);
      }
      // Lets the ticks every worker runs at start finish first, so that none of them finds the
      // test's notification (the case without Redis would then push without a kick).
      await new Promise((resolve) => setTimeout(resolve, 500));
      const scene: Scene = {
        api,
        worker,
        owner,
        passId: pass.id,
        close: async () => {
          if (worker.process.exitCode === null && worker.process.signalCode === null) {
            worker.process.kill('SIGTERM');
            await worker.exited;
          }
          await api.close();
        },
      };
      scenes.push(scene);
      return scene;
    }

    function notify(scene: Scene, fields: Record<string, string> = {}) {
      return request(scene.api.server)
        .post('/v1/wallet-pass/notifications')
        .set(scene.owner.auth)
        .send({
          passSerialNumber: scene.passId,
          notificationName: 'Wake',
          notificationMessage: 'Up',
          ...fields,
        })
        .expect(201);
    }

    it('pushes within a second of the API kicking, and a scheduled one on time', async () => {
      const scene = await startScene(true);

      apns.reset();
      const kickedAt = Date.now();
      await notify(scene);
      await waitFor(() => apns.pushes.length >= DEVICES, 'the pushes', WITHIN_MS);
      const firstPush = Math.min(...apns.pushes.map((push) => push.receivedAt.getTime()));
      const delay = firstPush - kickedAt;
      expect(delay).toBeLessThan(WITHIN_MS);

      // Scheduled: the kick makes the worker's tick set a timer for the scheduled time.
      apns.reset();
      const at = new Date(Date.now() + 1500);
      await notify(scene, { status: 'Scheduled', scheduledTime: at.toISOString() });
      await waitFor(() => apns.pushes.length >= DEVICES, 'the scheduled pushes', 1500 + WITHIN_MS);
      const scheduledPush = Math.min(...apns.pushes.map((push) => push.receivedAt.getTime()));
      const late = scheduledPush - at.getTime();
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(WITHIN_MS);

      process.stdout.write(
        `[wake-up] through Redis (${TEST_DB}): request → first push ${delay} ms; ` +
          `scheduledTime → first push ${late} ms (worker poll 60 s)\n`,
      );
    });

    it('without REDIS_URL the worker waits for its poll', async () => {
      const scene = await startScene(false);
      apns.reset();
      await notify(scene);
      await expect(waitFor(() => apns.pushes.length > 0, 'a push', WITHIN_MS)).rejects.toThrow(
        'Timed out',
      );
      expect(apns.pushes).toHaveLength(0);
    });
  },
);

describe(`Kicks while Redis is away (${TEST_DB})`, () => {
  it('neither fail the request nor keep the worker in this process from working', async () => {
    const walletA = await startWalletAEnv();
    // Nothing listens on port 1: every publish fails and the subscriber keeps reconnecting.
    const api = await startTestApp({
      ...walletA.env,
      REDIS_URL: 'redis://127.0.0.1:1',
      SCHEDULER_INTERVAL_MS: '60000',
    });
    try {
      const owner = await OwnerSession.start(api.server);
      const { pass } = await publishedPassWithDevices(owner, DEVICES);
      walletA.apns.reset();
      await request(api.server)
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Away', notificationMessage: 'Hi' })
        .expect(201);
      // The local kick does not depend on Redis.
      await waitFor(() => walletA.apns.pushes.length >= DEVICES, 'the pushes', WITHIN_MS);
    } finally {
      await api.close();
      await walletA.apns.close();
    }
  });
});
