import { newId, sqliteDriver } from '@app/core';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
import { OwnerSession } from '../support/session';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../support/test-database';
import {
  deviceToken,
  publishedPassWithDevices,
  startWalletAEnv,
  waitFor,
} from '../support/walleta-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  isAlive,
  killWorker,
  requireBuiltWorker,
  startWorkerProcess,
  type WorkerProcess,
} from '../support/worker-process';

/**
 * A worker process killed with SIGKILL halfway through a bulk increment: a second worker takes
 * the change over once the lease runs out and finishes it, and every holder was incremented
 * exactly once. Each batch commits its holders, their `holder.updated` events, their wallet jobs
 * and the change's checkpoint together, so at the kill the holders incremented are exactly those
 * the checkpoint counts, and the batch the dead worker was writing is rolled back whole.
 *
 * The workers are the built `dist/apps/worker/src/main.js` (scripts/test.sh builds it), real
 * processes the kernel kills; as in worker-sigkill.e2e-spec.ts, the test app only sets the scene
 * and is closed before the first worker starts, and the database is read only while no worker
 * runs (one process per SQLite file).
 */

/** Holders of the pass: the first NOT_NUMBERS have no number to add to, the next VOIDED are Voided. */
const HOLDERS = 3000;
const NOT_NUMBERS = 40;
const VOIDED = 25;
/** Small batches, so the job has many and the kill lands among them. */
const BATCH = 20;
const BATCHES = Math.ceil(HOLDERS / BATCH);
/** A test knob: the second worker takes over this soon after the kill. */
const LEASE_MS = 2000;

const initialPoints = (index: number) => (index < NOT_NUMBERS ? `n/a ${index}` : String(index * 3));

describe(`A worker killed with SIGKILL mid bulk change (${TEST_DB})`, () => {
  let apns: ApnsFake;
  let receiver: WebhookReceiver;
  let database: TestDatabase;
  let env: Record<string, string>;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    requireBuiltWorker();
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    receiver = await WebhookReceiver.start();
    database = await createTestDatabase();
    env = {
      ...walletA.env,
      ...database.env,
      JWT_SECRET: TEST_JWT_SECRET,
      STORAGE_DIR: '/tmp/wps-test-uploads',
      SCHEDULER_INTERVAL_MS: '200',
      WORKER_LEASE_MS: String(LEASE_MS),
      // The lease must outlast a webhook request (config check).
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      BULK_CHANGE_BATCH_SIZE: String(BATCH),
    };
  });
  afterAll(async () => {
    for (const worker of workers) await killWorker(worker);
    await database?.drop();
    await apns?.close();
    await receiver?.close();
  });

  function startWorker(): WorkerProcess {
    // Debug: each batch committed is a line, which tells the test when to kill.
    const worker = startWorkerProcess(env, 'debug');
    workers.push(worker);
    return worker;
  }

  const batchesOf = (worker: WorkerProcess) =>
    worker.lines.filter((line) => line.msg === 'Bulk change batch').length;

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

  interface HolderRow {
    id: string;
    external_id: string;
    status: string;
    version: number | string;
    field_values: string;
    serial_number: string;
  }

  const holdersOf = (dataSource: DataSource, passId: string) =>
    dataSource.query<HolderRow[]>(
      'SELECT id, external_id, status, version, field_values, serial_number FROM holder WHERE pass_id = ? ORDER BY external_id',
      [passId],
    );
  const pointsOf = (row: HolderRow) =>
    (JSON.parse(row.field_values) as Record<string, string>).points;

  it('resumes in another worker: every holder incremented exactly once, the change Done', async () => {
    // The scene, set by an app with its worker off: nothing runs until a worker starts.
    const testApp: TestApp = await startTestApp({ ...env, WORKER_ENABLED: 'false' }, database);
    let passId: string;
    let changeId: string;
    const tokenOf = new Map<string, string>();
    try {
      const owner = await OwnerSession.start(testApp.server);
      const { pass } = await publishedPassWithDevices(owner, 0, {
        passMetadata: {
          description: 'Card',
          organizationName: 'Brand',
          topField: { key: 'points', label: 'Points', value: '0' },
        },
      });
      passId = pass.id;
      const dataSource = testApp.app.get(DataSource);
      await request(testApp.server)
        .post('/v1/webhooks')
        .set(owner.auth)
        .send({ url: `${receiver.base}/hooks`, events: ['holder.updated'] })
        .expect(201);
      const rows = Array.from({ length: HOLDERS }, (_, i) => ({
        externalId: `member-${String(i).padStart(6, '0')}`,
        fieldValues: { points: initialPoints(i) },
      }));
      await request(testApp.server)
        .post(`/v1/wallet-pass/${pass.id}/holders/import`)
        .set(owner.auth)
        .send(rows)
        .expect(200);
      const holders = await holdersOf(dataSource, pass.id);
      for (const holder of holders.slice(NOT_NUMBERS, NOT_NUMBERS + VOIDED)) {
        await request(testApp.server)
          .delete(`/v1/wallet-pass/${pass.id}/holders/${holder.id}`)
          .set(owner.auth)
          .expect(204);
      }
      // One WalletA device per holder, as the PassKit web service would have registered them.
      const now = new Date();
      const registrations = holders.map((holder, n) => {
        tokenOf.set(holder.id, deviceToken(9_000_000 + n));
        return {
          id: newId(),
          workspaceId: owner.defaultWorkspaceId,
          passId: pass.id,
          holderId: holder.id,
          serialNumber: holder.serial_number,
          deviceLibraryId: `bulk-kill-${n}`,
          pushToken: tokenOf.get(holder.id)!,
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        };
      });
      for (let from = 0; from < registrations.length; from += 500) {
        await dataSource.getRepository(Registration).insert(registrations.slice(from, from + 500));
      }
      // Publishing and voiding queued pushes; those are another test's business.
      await dataSource.query("UPDATE wallet_a_push_job SET state = 'done' WHERE pass_id = ?", [
        pass.id,
      ]);
      // A holder's change time moves to the second after its last (Last-Modified has whole
      // seconds), so the voids may stand up to a second ahead of the clock. The change announces
      // holders changed since it was made: made before that, it would push the Voided ones too.
      const [{ latest }] = await dataSource.query<{ latest: string | Date }[]>(
        'SELECT MAX(updated_time) AS latest FROM holder WHERE pass_id = ?',
        [pass.id],
      );
      const latestChange =
        latest instanceof Date ? latest : new Date(`${latest.replace(' ', 'T')}Z`);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, latestChange.getTime() - Date.now() + 5)),
      );
      const created = await request(testApp.server)
        .post(`/v1/wallet-pass/${pass.id}/holders/bulk`)
        .set(owner.auth)
        .send({
          audience: { any: [{ status: 'Active' }, { status: 'Voided' }] },
          increment: { points: 1 },
        })
        .expect(202);
      changeId = (created.body as { id: string }).id;
    } finally {
      await testApp.app.close();
    }
    apns.reset();

    // The first worker: killed once about a third of the batches are committed.
    const first = startWorker();
    await waitFor(
      () => batchesOf(first) >= BATCHES / 3 || !isAlive(first),
      'a third of the batches (is dist/ built from this source?)',
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; worker stderr: ${first.stderr.join('\n')}`);
    });
    expect(isAlive(first)).toBe(true);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const batchesByFirst = batchesOf(first);
    const atKill = await withDatabase(async (dataSource) => {
      const [change] = await dataSource.query<Record<string, unknown>[]>(
        'SELECT status, matched, updated, skipped, leased_by FROM holder_bulk_change WHERE id = ?',
        [changeId],
      );
      const holders = await holdersOf(dataSource, passId);
      const incremented = holders.filter(
        (row, i) => row.status === 'Active' && pointsOf(row) === String(i * 3 + 1),
      ).length;
      return { change, incremented };
    });
    // Killed mid-change: part done, and exactly the holders the last checkpoint counts changed.
    expect(atKill.change).toMatchObject({ status: 'Running', matched: HOLDERS });
    const updatedAtKill = Number(atKill.change.updated);
    expect(updatedAtKill).toBeGreaterThan(0);
    expect(updatedAtKill).toBeLessThan(HOLDERS - NOT_NUMBERS - VOIDED);
    expect(atKill.incremented).toBe(updatedAtKill);

    // The second worker: takes over when the lease runs out and finishes.
    const killedAt = Date.now();
    const second = startWorker();
    await waitFor(
      () => second.lines.some((line) => line.msg === 'Bulk change done') || !isAlive(second),
      'the second worker to finish the bulk change',
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; worker stderr: ${second.stderr.join('\n')}`);
    });
    const resumedIn = Date.now() - killedAt;
    const changedHolders = HOLDERS - NOT_NUMBERS - VOIDED;
    // Every changed holder's device is pushed before the worker stops.
    await waitFor(
      () => new Set(apns.pushes.map((push) => push.token)).size >= changedHolders,
      'a push to every changed holder',
      60_000,
    );
    second.process.kill('SIGTERM');
    await second.exited;

    const final = await withDatabase(async (dataSource) => {
      const [change] = await dataSource.query<Record<string, unknown>[]>(
        'SELECT status, matched, updated, skipped, failure_reason, finished_time, leased_by, attempts FROM holder_bulk_change WHERE id = ?',
        [changeId],
      );
      const holders = await holdersOf(dataSource, passId);
      const events = await dataSource.query<{ body: string }[]>(
        "SELECT body FROM webhook_delivery WHERE event_type = 'holder.updated'",
      );
      return { change, holders, events };
    });
    expect(final.change).toMatchObject({ status: 'Done', failure_reason: null });
    expect(Number(final.change.matched)).toBe(HOLDERS);
    expect(Number(final.change.updated)).toBe(changedHolders);
    expect(Number(final.change.skipped)).toBe(NOT_NUMBERS + VOIDED);
    expect(final.change.finished_time).not.toBeNull();
    expect(final.change.leased_by).not.toBe(atKill.change.leased_by);
    expect(Number(final.change.attempts)).toBe(2);

    // Each holder exactly once: its value one more, its version one more (1 from the import).
    const wrong = final.holders.flatMap((row, i) => {
      const expected =
        i < NOT_NUMBERS
          ? { points: initialPoints(i), version: 1, status: 'Active' }
          : i < NOT_NUMBERS + VOIDED
            ? { points: initialPoints(i), version: 2, status: 'Voided' }
            : { points: String(i * 3 + 1), version: 2, status: 'Active' };
      const actual = { points: pointsOf(row), version: Number(row.version), status: row.status };
      return JSON.stringify(actual) === JSON.stringify(expected)
        ? []
        : [{ externalId: row.external_id, actual, expected }];
    });
    expect(wrong).toEqual([]);

    // One holder.updated per changed holder: the dead worker's last batch took its events along.
    const told = new Map<string, number>();
    for (const { body } of final.events) {
      const id = (JSON.parse(body) as { data: { id: string } }).data.id;
      told.set(id, (told.get(id) ?? 0) + 1);
    }
    const changedIds = final.holders.slice(NOT_NUMBERS + VOIDED).map((row) => row.id);
    expect(told.size).toBe(changedHolders);
    expect(changedIds.every((id) => told.get(id) === 1)).toBe(true);

    // Pushes, announced once the change is Done: every changed holder's device once, and no
    // other device.
    const pushed = new Map<string, number>();
    for (const push of apns.pushes) pushed.set(push.token, (pushed.get(push.token) ?? 0) + 1);
    expect(changedIds.filter((id) => pushed.get(tokenOf.get(id)!) !== 1)).toEqual([]);
    expect(apns.pushes).toHaveLength(changedHolders);

    process.stdout.write(
      `[faults] bulk change SIGKILL (${TEST_DB}): holders=${HOLDERS} batches=${BATCHES} of ${BATCH} ` +
        `committed by the first worker=${batchesByFirst} updated at the kill=${updatedAtKill} ` +
        `updated=${Number(final.change.updated)} skipped=${Number(final.change.skipped)} ` +
        `events=${final.events.length} pushes=${apns.pushes.length}; ` +
        `second worker finished ${resumedIn} ms after the kill (lease ${LEASE_MS} ms)\n`,
    );
  });
});
