import { newId } from '@app/core';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
import { TcpProxy } from '../fakes/tcp-proxy';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';
import {
  deviceToken,
  publishedPassWithDevices,
  startWalletAEnv,
  waitFor,
} from '../support/walleta-env';

/**
 * APNs throttles (429 TooManyRequests) and fails (500 InternalServerError) a large share of the
 * first pushes of a fan-out, then recovers. The client retries those (5 tries, backoff), so
 * every device still gets exactly one accepted push, and only what APNs accepted counts as
 * sent. A few devices whose pushes fail every time end as failed deliveries, not as sent.
 *
 * The injected failures are fewer than the devices, so they all fall on first tries and no
 * device can run out of tries because of them: the counts are exact, not a matter of luck.
 */

const DEVICES = 300;
const THROTTLED = 150;
const FAILED = 90;
/** Devices whose every push fails: their deliveries are recorded as failed. */
const DOOMED = 3;
const OUTAGE_ANSWER_MS = 300;
/** Tries per push (ApnsClient's default retry policy). */
const TRIES = 5;
const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];

/**
 * `count` WalletA devices of the pass, straight into the table: registering hundreds through
 * PassKit tells nothing new. Returns their push tokens.
 */
async function insertDevices(
  testApp: TestApp,
  owner: OwnerSession,
  passId: string,
  count: number,
  firstToken: number,
): Promise<string[]> {
  const now = new Date();
  const tokens = Array.from({ length: count }, (_, i) => deviceToken(firstToken + i));
  await testApp.app
    .get(DataSource)
    .getRepository(Registration)
    .insert(
      tokens.map((pushToken, i) => ({
        id: newId(),
        workspaceId: owner.defaultWorkspaceId,
        passId,
        serialNumber: passId,
        deviceLibraryId: `apns-outage-${firstToken + i}`,
        pushToken,
        createdTime: now,
        updatedTime: now,
        removedTime: null,
      })),
    );
  return tokens;
}

const describeCounts = (counts: Record<string, number | string>) =>
  Object.entries(counts)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');

describe(`APNs answering 429 and 500, then recovering (${TEST_DB})`, () => {
  let apns: ApnsFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let pass: { id: string; slug: string };
  let tokens: string[];

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    testApp = await startTestApp({ ...walletA.env, SCHEDULER_INTERVAL_MS: '200' });
    owner = await OwnerSession.start(testApp.server);
    pass = (await publishedPassWithDevices(owner, 0)).pass;
    tokens = await insertDevices(testApp, owner, pass.id, DEVICES, 7_000_000);
    // The pass's own publish push (to no device yet) must be over before the counts start.
    await waitFor(async () => (await unfinishedPushJobs()) === 0, 'the publish push job');
  });
  afterAll(async () => {
    await testApp.close();
    await apns.close();
  });

  const sql = <T>(query: string, parameters: unknown[]) =>
    testApp.app.get(DataSource).query<T>(query, parameters);
  const unfinishedPushJobs = async () =>
    Number(
      (
        await sql<{ n: number | string }[]>(
          "SELECT COUNT(*) AS n FROM wallet_a_push_job WHERE pass_id = ? AND state <> 'done'",
          [pass.id],
        )
      )[0].n,
    );

  /** The outage: per-token failures first, so they never use up the shared ones. */
  function scriptOutage(): string[] {
    apns.reset();
    const doomed = tokens.slice(0, DOOMED);
    for (const token of doomed) apns.failNext(1000, 500, token);
    apns.failNext(THROTTLED, 429).failNext(FAILED, 500);
    // An APNs in trouble is slow as well: the outage lasts a while, not a few milliseconds.
    apns.delay(OUTAGE_ANSWER_MS, { times: THROTTLED + FAILED });
    return doomed;
  }

  /** What the fake saw: every healthy token accepted exactly once, the rejections as injected. */
  function checkPushes(doomed: string[]): Record<string, number> {
    const accepted = new Map<string, number>();
    for (const push of apns.pushes) accepted.set(push.token, (accepted.get(push.token) ?? 0) + 1);
    const healthy = tokens.filter((token) => !doomed.includes(token));
    expect(healthy.filter((token) => accepted.get(token) !== 1)).toEqual([]);
    for (const token of doomed) {
      expect(accepted.has(token)).toBe(false);
      expect(apns.answersFor(token).map((answer) => answer.status)).toEqual(
        Array<number>(TRIES).fill(500),
      );
    }
    const byStatus = (status: number) =>
      apns.answers.filter((answer) => answer.status === status).length;
    expect(byStatus(429)).toBe(THROTTLED);
    expect(byStatus(500)).toBe(FAILED + DOOMED * TRIES);
    expect(byStatus(200)).toBe(healthy.length);
    expect(apns.answers).toHaveLength(healthy.length + THROTTLED + FAILED + DOOMED * TRIES);
    const retried = new Set(
      apns.answers.filter((answer) => answer.status !== 200).map((answer) => answer.token),
    );
    return {
      attempts: apns.answers.length,
      accepted: byStatus(200),
      rejected429: byStatus(429),
      rejected500: byStatus(500),
      devicesRetried: retried.size,
      duplicates: [...accepted.values()].filter((n) => n > 1).length,
    };
  }

  it('delivers a notification to every device exactly once and counts only accepted pushes', async () => {
    const doomed = scriptOutage();
    const started = Date.now();
    const created = await request(testApp.server)
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: pass.id, notificationName: 'Storm', notificationMessage: 'Hi' })
      .expect(201);
    const id = (created.body as { id: string }).id;
    const read = async () =>
      (
        await request(testApp.server)
          .get(`/v1/wallet-pass/notifications/${id}?includeStats=true`)
          .set(owner.auth)
          .expect(200)
      ).body as Record<string, unknown> & { notificationStats: { totalNotificationsSent: number } };
    await waitFor(async () => FINAL.includes((await read()).status as string), 'delivery', 30_000);
    const elapsed = Date.now() - started;

    const counts = checkPushes(doomed);
    const sent = DEVICES - DOOMED;
    const done = await read();
    // WalletB has no credentials in this app: it is the failed side, WalletA succeeded.
    expect(done).toMatchObject({
      status: 'AppleSuccessGoogleFailed',
      appleNotificationSentCount: sent,
      googleNotificationSentCount: 0,
      totalNotificationSentCount: sent,
    });
    expect(done.failureReason).toEqual(expect.stringContaining('WalletB'));
    expect(done.failureReason).not.toEqual(expect.stringContaining('WalletA'));
    expect(done.notificationStats.totalNotificationsSent).toBe(sent);

    // One delivery record per device: sent exactly for the tokens APNs accepted.
    const deliveries = await sql<{ push_token: string; outcome: string; reason: string | null }[]>(
      'SELECT r.push_token, d.outcome, d.reason FROM notification_delivery d JOIN wallet_a_registration r ON r.id = d.registration_id WHERE d.notification_id = ?',
      [id],
    );
    expect(deliveries).toHaveLength(DEVICES);
    expect(new Set(deliveries.map((row) => row.push_token)).size).toBe(DEVICES);
    const sentTokens = deliveries.filter((row) => row.outcome === 'sent').map((r) => r.push_token);
    expect(sentTokens.sort()).toEqual(apns.pushes.map((push) => push.token).sort());
    expect(
      deliveries
        .filter((row) => row.outcome !== 'sent')
        .map((row) => [row.push_token, row.outcome, row.reason])
        .sort(),
    ).toEqual(doomed.map((token) => [token, 'failed', 'InternalServerError']).sort());

    process.stdout.write(
      `[faults] APNs outage, notification (${TEST_DB}): devices=${DEVICES} injected 429=${THROTTLED} ` +
        `500=${FAILED} doomed devices=${DOOMED}; ${describeCounts(counts)}; ` +
        `recorded sent=${sentTokens.length} failed=${DEVICES - sentTokens.length}; ` +
        `status=${String(done.status)} appleNotificationSentCount=${String(done.appleNotificationSentCount)}; ` +
        `${elapsed} ms\n`,
    );
  });

  it('pushes a pass update to every device exactly once through the same outage', async () => {
    const doomed = scriptOutage();
    const started = Date.now();
    await request(testApp.server)
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({
        passName: 'Storm pass',
        passMetadata: { description: 'Card, changed', organizationName: 'Brand' },
      })
      .expect(200);
    await waitFor(async () => (await unfinishedPushJobs()) === 0, 'the update push', 30_000);
    const elapsed = Date.now() - started;

    const counts = checkPushes(doomed);
    const [job] = await sql<Record<string, number | string>[]>(
      'SELECT pushed_count, failed_count, unregistered_count FROM wallet_a_push_job WHERE pass_id = ? ORDER BY pass_version DESC',
      [pass.id],
    );
    expect(Object.fromEntries(Object.entries(job).map(([k, v]) => [k, Number(v)]))).toEqual({
      pushed_count: DEVICES - DOOMED,
      failed_count: DOOMED,
      unregistered_count: 0,
    });

    process.stdout.write(
      `[faults] APNs outage, pass update (${TEST_DB}): devices=${DEVICES} injected 429=${THROTTLED} ` +
        `500=${FAILED} doomed devices=${DOOMED}; ${describeCounts(counts)}; ` +
        `job pushed=${job.pushed_count} failed=${job.failed_count}; ${elapsed} ms\n`,
    );
  });
});

/**
 * APNs stalls mid fan-out: the connection stays open and every byte either way is held for
 * 20 s (a stopped server, a lost route), while pushes are in flight. The client finds the stall
 * (a request unanswered for 10 s, then a PING unanswered for 5 s), destroys the connection and
 * retries its pushes on a new one, which connects once APNs answers again. Every device gets its
 * push; the duplicates are pushes APNs had accepted before the stall and whose answers the stall
 * held, so at most the streams in flight on the stalled connection (APNs' stream limit here, one
 * connection); the API answers as ever meanwhile.
 */
describe(`APNs stalled for 20 s mid fan-out (${TEST_DB})`, () => {
  const STALLED_MS = 20_000;
  /** APNs' SETTINGS_MAX_CONCURRENT_STREAMS here: streams in flight on the one connection. */
  const STREAMS = 50;
  const STALL_DEVICES = 300;
  /** Pushes answered before the stall begins. */
  const BEFORE_STALL = 100;

  let apns: ApnsFake;
  let proxy: TcpProxy;
  let testApp: TestApp;
  let owner: OwnerSession;
  let pass: { id: string; slug: string };
  let tokens: string[];

  beforeAll(async () => {
    const walletA = await startWalletAEnv({ maxConcurrentStreams: STREAMS });
    apns = walletA.apns;
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(apns.url).port) });
    testApp = await startTestApp({
      ...walletA.env,
      WALLET_A_APNS_URL: `http://127.0.0.1:${proxy.port}`,
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    pass = (await publishedPassWithDevices(owner, 0)).pass;
    tokens = await insertDevices(testApp, owner, pass.id, STALL_DEVICES, 8_000_000);
    await waitFor(
      async () =>
        Number(
          (
            await testApp.app
              .get(DataSource)
              .query<{ n: number | string }[]>(
                "SELECT COUNT(*) AS n FROM wallet_a_push_job WHERE pass_id = ? AND state <> 'done'",
                [pass.id],
              )
          )[0].n,
        ) === 0,
      'the publish push job',
    );
  });
  afterAll(async () => {
    proxy.restore();
    await testApp.close();
    await proxy.close();
    await apns.close();
  });

  it('delivers to every device after the stall, with duplicates bounded by the stalled streams', async () => {
    apns.reset();
    // Answers take a moment, so that pushes are in flight at APNs when it stalls.
    apns.delay(100);
    const started = Date.now();
    const created = await request(testApp.server)
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: pass.id, notificationName: 'Stall', notificationMessage: 'Hi' })
      .expect(201);
    const id = (created.body as { id: string }).id;
    await waitFor(() => apns.pushes.length >= BEFORE_STALL, 'the first pushes', 10_000);

    proxy.freeze();
    const stalledAt = Date.now();
    const acceptedBeforeStall = apns.pushes.length;
    let slowestApiMs = 0;
    let apiCalls = 0;
    while (Date.now() - stalledAt < STALLED_MS) {
      const call = Date.now();
      await request(testApp.server).get('/v1/wallet-pass').set(owner.auth).expect(200);
      slowestApiMs = Math.max(slowestApiMs, Date.now() - call);
      apiCalls++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Accepted while stalled: answers APNs gave that the stall held (not yet known to us).
    const acceptedDuringStall = apns.pushes.length - acceptedBeforeStall;
    proxy.restore();
    const thawed = Date.now();

    const read = async () =>
      (
        await request(testApp.server)
          .get(`/v1/wallet-pass/notifications/${id}`)
          .set(owner.auth)
          .expect(200)
      ).body as Record<string, unknown>;
    await waitFor(async () => FINAL.includes((await read()).status as string), 'delivery', 60_000);
    const afterThaw = Date.now() - thawed;
    const done = await read();

    const accepted = new Map<string, number>();
    for (const push of apns.pushes) accepted.set(push.token, (accepted.get(push.token) ?? 0) + 1);
    const duplicates = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0);
    const deliveries = await testApp.app
      .get(DataSource)
      .query<{ outcome: string }[]>(
        'SELECT d.outcome FROM notification_delivery d WHERE d.notification_id = ?',
        [id],
      );
    process.stdout.write(
      `[faults] APNs stalled ${STALLED_MS} ms mid fan-out (${TEST_DB}): devices=${STALL_DEVICES} ` +
        `${describeCounts({
          streams: STREAMS,
          acceptedBeforeStall,
          acceptedDuringStall,
          accepted: apns.pushes.length,
          devicesReached: accepted.size,
          duplicates,
          bound: STREAMS,
          connections: apns.sessionsOpened,
        })}; status=${String(done.status)} appleNotificationSentCount=` +
        `${String(done.appleNotificationSentCount)}; delivered ${afterThaw} ms after the thaw, ` +
        `${Date.now() - started} ms in all; API while stalled: ${apiCalls} calls, slowest ${slowestApiMs} ms\n`,
    );

    expect(tokens.filter((token) => !accepted.has(token))).toEqual([]);
    // The stalled connection was given up and the pushes it held went out on a new one.
    expect(apns.sessionsOpened).toBeGreaterThanOrEqual(2);
    expect(duplicates).toBeLessThanOrEqual(STREAMS);
    expect(deliveries).toHaveLength(STALL_DEVICES);
    expect(deliveries.every((row) => row.outcome === 'sent')).toBe(true);
    expect(done).toMatchObject({ appleNotificationSentCount: STALL_DEVICES });
    expect(afterThaw).toBeLessThan(10_000);
    expect(slowestApiMs).toBeLessThan(1000);
  }, 120_000);
});
