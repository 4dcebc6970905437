import { loadConfig, ServiceEvents } from '@app/core';
import { LinkRedirectService, PassDailyStats } from '@app/passes';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { WorkerModule } from '../apps/worker/src/worker.module';
import type { ApnsFake } from './fakes/apns-fake';
import { GoogleWalletFake } from './fakes/google-wallet-fake';
import { OwnerSession } from './support/session';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';
import {
  deviceToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  registerDevice,
  startWalletAEnv,
  waitFor,
} from './support/walleta-env';

const ISSUER_ID = '3388000000044445555';
const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];
const DAY_MS = 24 * 60 * 60 * 1000;

interface Day {
  date: string;
  appleInstalls: number;
  googleInstalls: number;
  appleUninstalls: number;
  googleUninstalls: number;
  linkClicks: number;
  notificationsSent: number;
}
type Counters = Omit<Day, 'date'>;

const ZEROS: Counters = {
  appleInstalls: 0,
  googleInstalls: 0,
  appleUninstalls: 0,
  googleUninstalls: 0,
  linkClicks: 0,
  notificationsSent: 0,
};

const utcDay = (offsetDays = 0): string =>
  new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

/** The counters of all days added up (a test running across midnight splits them in two). */
function total(days: Day[]): Counters {
  const sum = { ...ZEROS };
  for (const day of days) {
    for (const key of Object.keys(ZEROS) as (keyof Counters)[]) sum[key] += day[key];
  }
  return sum;
}

describe('Pass statistics per day', () => {
  let apns: ApnsFake;
  let google: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    google = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      ...walletA.env,
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...google.serviceEnv(),
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    await testApp.close();
    await apns.close();
    await google.close();
  });

  const http = () => request(testApp.server);
  const stats = (passId: string, query = '', workspaceId?: string) => {
    let call = http().get(`/v1/wallet-pass/${passId}/stats${query}`).set(owner.auth);
    if (workspaceId !== undefined) call = call.set('x-workspace-id', workspaceId);
    return call;
  };
  const days = async (passId: string, query = ''): Promise<Day[]> =>
    ((await stats(passId, query).expect(200)).body as { days: Day[] }).days;

  /** A Published pass with one short link, and what a WalletA device needs to register. */
  const linkedPass = () =>
    publishedPassWithDevices(owner, 0, {
      passMetadata: {
        description: 'Card',
        organizationName: 'Brand',
        backFields: [
          {
            key: 'links',
            label: 'Links',
            value: [{ text: 'Shop', link: 'https://brand.example' }],
          },
        ],
      },
    });

  /** The slug of the pass's short link. */
  const linkSlug = async (passId: string): Promise<string> =>
    (
      (await http().get(`/v1/wallet-pass/${passId}`).set(owner.auth).expect(200)).body as {
        passMetadata: { backFields: { value: { slug: string }[] }[] };
      }
    ).passMetadata.backFields[0].value[0].slug;

  const passkit = (device: string, passId: string, authToken: string) =>
    http()
      .post(`/passkit/v1/devices/${device}/registrations/${PASS_TYPE_ID}/${passId}`)
      .set('Authorization', `ApplePass ${authToken}`);
  const unregister = (device: string, passId: string, authToken: string) =>
    http()
      .delete(`/passkit/v1/devices/${device}/registrations/${PASS_TYPE_ID}/${passId}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
  const callback = (eventType: 'save' | 'del', classId: string, objectId: string) =>
    http()
      .post('/callbacks/wallet-b')
      .send(
        google.callbackSigner.build(
          { classId, objectId, eventType },
          { recipientId: ISSUER_ID },
        ) as object,
      )
      .expect(200);

  it("counts a day's installs, uninstalls, clicks and notification sends as they happen", async () => {
    const { pass, authToken } = await linkedPass();
    const other = await linkedPass();
    const classId = `${ISSUER_ID}.${pass.id}`;
    const first = utcDay(-2);
    const last = utcDay(1);

    // WalletA: three devices register; one registers again (not an install), one removes the
    // pass twice (one uninstall), one will be unreachable when the notification goes out.
    const [reachable, leaving, gone] = [deviceToken(9001), deviceToken(9002), deviceToken(9003)];
    await registerDevice(testApp.server, pass.id, authToken, 'stats-device-1', reachable);
    await registerDevice(testApp.server, pass.id, authToken, 'stats-device-2', leaving);
    await registerDevice(testApp.server, pass.id, authToken, 'stats-device-3', gone);
    await passkit('stats-device-1', pass.id, authToken).send({ pushToken: reachable }).expect(200);
    await unregister('stats-device-2', pass.id, authToken);
    await unregister('stats-device-2', pass.id, authToken);

    // WalletB: two objects saved, one saved again, one deleted twice.
    await callback('save', classId, `${classId}-statsAAAAAAAAAA`);
    await callback('save', classId, `${classId}-statsBBBBBBBBBB`);
    await callback('save', classId, `${classId}-statsAAAAAAAAAA`);
    await callback('del', classId, `${classId}-statsAAAAAAAAAA`);
    await callback('del', classId, `${classId}-statsAAAAAAAAAA`);

    // Three clicks; a link-preview robot's fetch is no click.
    const slug = await linkSlug(pass.id);
    for (let i = 0; i < 3; i++) await http().get(`/l/${slug}`).expect(302);
    await http().get(`/l/${slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0').expect(302);
    await testApp.app.get(LinkRedirectService).flush();

    // Nothing counted yet on the notifications; then one goes out to the devices and Google.
    await waitFor(() => google.classes.has(classId), 'the class at Google');
    apns.reset();
    apns.unregister(gone);
    const created = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: pass.id, notificationName: 'Stats', notificationMessage: 'Hi' })
      .expect(201);
    let notification: { status: string; appleNotificationSentCount: number } & Record<
      string,
      unknown
    > = created.body;
    await waitFor(async () => {
      notification = (
        await http()
          .get(`/v1/wallet-pass/notifications/${created.body.id}`)
          .set(owner.auth)
          .expect(200)
      ).body;
      return FINAL.includes(notification.status);
    }, 'the notification to finish');
    expect(notification.appleNotificationSentCount).toBe(1);
    expect(notification.totalNotificationSentCount).toBeGreaterThanOrEqual(1);

    const range = await days(pass.id, `?from=${first}&to=${last}`);
    expect(range.map((day) => day.date)).toEqual([first, utcDay(-1), utcDay(0), last]);
    // The days before today saw nothing and are there, as zeros.
    expect(range.slice(0, 2)).toEqual([
      { date: first, ...ZEROS },
      { date: utcDay(-1), ...ZEROS },
    ]);
    expect(total(range)).toEqual({
      appleInstalls: 3,
      googleInstalls: 2,
      // The device that left, and the one APNs no longer knows.
      appleUninstalls: 2,
      googleUninstalls: 1,
      linkClicks: 3,
      notificationsSent: notification.totalNotificationSentCount,
    });

    // Another pass of the workspace counted nothing of this.
    expect(total(await days(other.pass.id, `?from=${first}&to=${last}`))).toEqual(ZEROS);
  });

  it('counts a returning device and a restored object as installs again', async () => {
    const { pass, authToken } = await linkedPass();
    const classId = `${ISSUER_ID}.${pass.id}`;
    await registerDevice(testApp.server, pass.id, authToken, 'stats-back-1', deviceToken(9101));
    await unregister('stats-back-1', pass.id, authToken);
    await registerDevice(testApp.server, pass.id, authToken, 'stats-back-1', deviceToken(9101));
    await callback('save', classId, `${classId}-backAAAAAAAAAAA`);
    await callback('del', classId, `${classId}-backAAAAAAAAAAA`);
    await callback('save', classId, `${classId}-backAAAAAAAAAAA`);
    expect(total(await days(pass.id, `?from=${utcDay(-1)}&to=${utcDay(1)}`))).toEqual({
      ...ZEROS,
      appleInstalls: 2,
      appleUninstalls: 1,
      googleInstalls: 2,
      googleUninstalls: 1,
    });
  });

  it('counts every one of many concurrent clicks (one atomic increment each)', async () => {
    const { pass } = await linkedPass();
    const slug = await linkSlug(pass.id);
    await Promise.all(Array.from({ length: 25 }, () => http().get(`/l/${slug}`).expect(302)));
    await testApp.app.get(LinkRedirectService).flush();
    expect(total(await days(pass.id, `?from=${utcDay(-1)}&to=${utcDay(1)}`))).toEqual({
      ...ZEROS,
      linkClicks: 25,
    });
  });

  it('answers the last 30 days ending today by default, oldest first', async () => {
    const { pass } = await linkedPass();
    const answer = await days(pass.id);
    expect(answer).toHaveLength(30);
    expect(answer[0]).toEqual({ date: utcDay(-29), ...ZEROS });
    expect(answer[29].date).toBe(utcDay(0));
    expect(answer.map((day) => day.date)).toEqual(
      Array.from({ length: 30 }, (_, n) => utcDay(n - 29)),
    );
    const untilGiven = await days(pass.id, '?to=2024-03-01');
    expect([untilGiven.length, untilGiven[0].date, untilGiven[29].date]).toEqual([
      30,
      '2024-02-01',
      '2024-03-01',
    ]);
    // A whole leap year is the most one answer covers.
    expect(await days(pass.id, '?from=2024-01-01&to=2024-12-31')).toHaveLength(366);
  });

  it.each([
    ['?from=2026-01-02&to=2026-01-01', { from: 'must not be after to' }],
    ['?from=2023-12-31&to=2024-12-31', { from: 'must be at most 365 days before to' }],
    ['?from=2026-02-30&to=2026-03-01', { from: 'must be a date YYYY-MM-DD' }],
    ['?to=31-01-2026', { to: 'must be a date YYYY-MM-DD' }],
    ['?from=x&to=y', { from: 'must be a date YYYY-MM-DD', to: 'must be a date YYYY-MM-DD' }],
    ['?from=2026-01-01&from=2026-01-02', { from: 'must be a string' }],
  ])('refuses %s with 400 and its context', async (query, context) => {
    const { pass } = await linkedPass();
    const response = await stats(pass.id, query).expect(400);
    expect(response.body).toMatchObject({ errorCode: 'INVALID_INPUT', context });
  });

  it("answers 404 for another workspace's pass, a deleted pass and an unknown id", async () => {
    const { pass } = await linkedPass();
    const elsewhere = await owner.createWorkspace();
    const foreign = await stats(pass.id, '', elsewhere).expect(404);
    expect(foreign.body).toMatchObject({ errorCode: 'NOT_FOUND', context: { id: pass.id } });
    await stats('019a2b3c-0000-7f60-8a1b-2c3d4e5f6a7b').expect(404);

    await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
    await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(404);
    await stats(pass.id).expect(404);
  });
});

describe('Pass statistics in the worker process', () => {
  it('counts the events the worker records (APNs deactivations, finished notifications)', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: TEST_JWT_SECRET,
      STORAGE_DIR: '/tmp/wps-test-uploads',
      ...database.env,
    });
    const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
      logger: false,
    });
    try {
      await worker.init();
      const dataSource = worker.get(DataSource);
      const events = worker.get(ServiceEvents);
      const time = new Date('2026-01-31T23:59:59.999Z');
      await dataSource.transaction((manager) =>
        events.record(manager, {
          type: 'pass.uninstalled',
          workspaceId: 'workspace-1',
          time,
          data: { passId: 'pass-1', holderId: null, platform: 'WalletA' },
        }),
      );
      await dataSource.transaction((manager) =>
        events.record(manager, {
          type: 'notification.finished',
          workspaceId: 'workspace-1',
          time,
          passId: 'pass-1',
          data: { passSerialNumber: 'pass-1', totalNotificationSentCount: 7 },
        }),
      );
      expect(await dataSource.getRepository(PassDailyStats).find()).toEqual([
        {
          passId: 'pass-1',
          day: '2026-01-31',
          workspaceId: 'workspace-1',
          ...ZEROS,
          appleUninstalls: 1,
          notificationsSent: 7,
        },
      ]);
    } finally {
      await worker.close();
      await database.drop();
    }
  });
});
