import { newId } from '@app/core';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from '../fakes/apns-fake';
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
    // The devices go straight into the table: registering 300 through PassKit tells nothing new.
    const now = new Date();
    tokens = Array.from({ length: DEVICES }, (_, i) => deviceToken(7_000_000 + i));
    await testApp.app
      .get(DataSource)
      .getRepository(Registration)
      .insert(
        tokens.map((pushToken, i) => ({
          id: newId(),
          workspaceId: owner.defaultWorkspaceId,
          passId: pass.id,
          serialNumber: pass.id,
          deviceLibraryId: `apns-outage-${i}`,
          pushToken,
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        })),
      );
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

  const describeCounts = (counts: Record<string, number | string>) =>
    Object.entries(counts)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ');

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
