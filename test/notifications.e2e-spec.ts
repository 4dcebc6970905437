import { newId } from '@app/core';
import { Notification, NotificationDelivery, NotificationWorker } from '@app/notifications';
import { Registration } from '@app/wallet-a';
import request from 'supertest';
import { binaryBody } from './support/pkpass';
import { DataSource } from 'typeorm';
import type { ApnsFake } from './fakes/apns-fake';
import { GoogleWalletFake } from './fakes/google-wallet-fake';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';
import {
  deviceToken,
  publishedPassWithDevices,
  startWalletAEnv,
  waitFor,
} from './support/walleta-env';

const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];

describe('Notifications', () => {
  let apns: ApnsFake;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    testApp = await startTestApp({ ...walletA.env });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    await testApp.close();
    await apns.close();
  });

  const http = () => request(testApp.server);

  /** A Published pass with `devices` WalletA devices registered through the web service. */
  const passWithDevices = (devices: number) => publishedPassWithDevices(owner, devices);

  const notification = async (id: string) =>
    (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)).body;
  const settled = (id: string) =>
    waitFor(
      async () => FINAL.includes((await notification(id)).status),
      `notification ${id} to finish`,
    );

  describe('create', () => {
    it('sends at once when no status is given: every device pushed, message on the pass', async () => {
      const { pass, tokens, authToken } = await passWithDevices(3);
      apns.reset();
      const created = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Weekend',
          notificationMessage: 'Double points!',
        })
        .expect(201);
      expect(created.body).toMatchObject({
        id: expect.any(String),
        passSerialNumber: pass.id,
        notificationName: 'Weekend',
        notificationMessage: 'Double points!',
        status: 'Processing',
        appleNotificationSentCount: 0,
        workspaceId: owner.defaultWorkspaceId,
        accountId: expect.any(String),
      });
      await settled(created.body.id);
      const done = await notification(created.body.id);
      // No WalletB in this app: WalletA succeeded, WalletB is recorded as failed with its reason.
      expect(done).toMatchObject({
        status: 'AppleSuccessGoogleFailed',
        appleNotificationSentCount: 3,
        googleNotificationSentCount: 0,
        totalNotificationSentCount: 3,
        failureReason: expect.stringContaining('WalletB'),
      });
      expect(done.publishedTime).not.toBeNull();
      expect(done.sentTime).not.toBeNull();
      expect(apns.pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());

      // The device's next download carries the message as a field with a changeMessage.
      const latest = await http()
        .get(`/passkit/v1/passes/pass.example.e2e/${pass.id}`)
        .set('Authorization', `ApplePass ${authToken}`)
        .buffer(true)
        .parse(binaryBody)
        .expect(200);
      const passJson = (latest.body as Buffer).toString('latin1');
      expect(passJson).toContain(
        '{"key":"notification","label":"Brand news","value":"Double points!","changeMessage":"%@"}',
      );
    });

    it('takes its own answer back to PATCH, read-only fields and all', async () => {
      const { pass } = await passWithDevices(0);
      const draft = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Echo', status: 'Draft' })
        .expect(201);
      const read = await notification(draft.body.id);
      const updated = await http()
        .patch(`/v1/wallet-pass/notifications/${draft.body.id}`)
        .set(owner.auth)
        .send({ ...read, notificationName: 'Echoed' })
        .expect(200);
      expect(updated.body).toMatchObject({ status: 'Draft', notificationName: 'Echoed' });
    });

    it('keeps a Draft unsent, then sends it when updated to Processing', async () => {
      const { pass } = await passWithDevices(1);
      apns.reset();
      const draft = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Later', status: 'Draft' })
        .expect(201);
      expect(draft.body.status).toBe('Draft');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(apns.pushes).toHaveLength(0);
      expect((await notification(draft.body.id)).status).toBe('Draft');

      const updated = await http()
        .patch(`/v1/wallet-pass/notifications/${draft.body.id}`)
        .set(owner.auth)
        .send({ notificationMessage: 'Now!', status: 'Processing' })
        .expect(200);
      expect(['Processing', 'Initializing', 'Finalizing', ...FINAL]).toContain(updated.body.status);
      await settled(draft.body.id);
      expect((await notification(draft.body.id)).appleNotificationSentCount).toBe(1);
    });

    it('sends a Scheduled notification within seconds of its time', async () => {
      const { pass, tokens } = await passWithDevices(1);
      apns.reset();
      const at = new Date(Date.now() + 1500);
      const scheduled = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Timed',
          notificationMessage: 'Tick',
          status: 'Scheduled',
          scheduledTime: at.toISOString(),
        })
        .expect(201);
      expect(scheduled.body).toMatchObject({
        status: 'Scheduled',
        scheduledTime: at.toISOString(),
      });
      await waitFor(() => apns.pushesFor(tokens[0]).length === 1, 'the scheduled push');
      const delay = apns.pushesFor(tokens[0])[0].receivedAt.getTime() - at.getTime();
      expect(delay).toBeGreaterThanOrEqual(0);
      process.stdout.write(`[notifications] scheduledTime → first push: ${delay} ms\n`);
      await settled(scheduled.body.id);
    });

    it.each([
      [{ notificationMessage: '' }, { notificationMessage: 'must not be empty' }],
      [{}, { notificationMessage: 'must not be null' }],
      [{ notificationMessage: 'x', status: 'Scheduled' }, { scheduledTime: 'must not be null' }],
      [
        { notificationMessage: 'x', status: 'Scheduled', scheduledTime: '2020-01-01T00:00:00Z' },
        { scheduledTime: 'must not be in the past' },
      ],
      [
        { notificationMessage: 'x', status: 'Published' },
        { status: expect.stringContaining('must be one of') },
      ],
      [
        { notificationMessage: 'x', status: 'Scheduled', scheduledTime: 'tomorrow' },
        { scheduledTime: expect.stringContaining('ISO 8601') },
      ],
    ])('refuses %p with 400 and %p', async (body, context) => {
      const { pass } = await passWithDevices(0);
      const response = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Bad', ...body })
        .expect(400);
      expect(response.body.errorCode).toBe('INVALID_INPUT');
      expect(response.body.context).toEqual(context);
    });

    it('requires passSerialNumber and notificationName, and a pass of this workspace', async () => {
      const missing = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({})
        .expect(400);
      expect(missing.body.context).toEqual({
        passSerialNumber: 'must not be null',
        notificationName: 'must not be null',
      });
      const unknown = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: 'no-such-pass', notificationName: 'x', status: 'Draft' })
        .expect(404);
      expect(unknown.body.context).toEqual({ id: 'no-such-pass' });
      const { pass } = await passWithDevices(0);
      const other = await owner.createWorkspace();
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .set('x-workspace-id', other)
        .send({ passSerialNumber: pass.id, notificationName: 'x', status: 'Draft' })
        .expect(404);
    });
  });

  describe('updates and deletes', () => {
    it('updates a Scheduled notification (time and content) and deletes Draft/Scheduled ones', async () => {
      const { pass } = await passWithDevices(0);
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const later = new Date(Date.now() + 7_200_000).toISOString();
      const created = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'S',
          notificationMessage: 'a',
          status: 'Scheduled',
          scheduledTime: at,
        })
        .expect(201);
      const updated = await http()
        .patch(`/v1/wallet-pass/notifications/${created.body.id}`)
        .set(owner.auth)
        .send({ notificationName: 'S2', notificationMessage: 'b', scheduledTime: later })
        .expect(200);
      expect(updated.body).toMatchObject({
        status: 'Scheduled',
        notificationName: 'S2',
        notificationMessage: 'b',
        scheduledTime: later,
      });
      const invalid = await http()
        .patch(`/v1/wallet-pass/notifications/${created.body.id}`)
        .set(owner.auth)
        .send({ notificationMessage: '' })
        .expect(400);
      expect(invalid.body.context).toEqual({ notificationMessage: 'must not be empty' });
      await http()
        .delete(`/v1/wallet-pass/notifications/${created.body.id}`)
        .set(owner.auth)
        .expect(204);
      await http()
        .get(`/v1/wallet-pass/notifications/${created.body.id}`)
        .set(owner.auth)
        .expect(404);
      await http()
        .patch('/v1/wallet-pass/notifications/no-such-id')
        .set(owner.auth)
        .send({ notificationName: 'x' })
        .expect(404);
    });

    it('refuses to update or delete a notification that went out (409)', async () => {
      const { pass } = await passWithDevices(1);
      const sent = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Gone', notificationMessage: 'bye' })
        .expect(201);
      await settled(sent.body.id);
      const patch = await http()
        .patch(`/v1/wallet-pass/notifications/${sent.body.id}`)
        .set(owner.auth)
        .send({ notificationName: 'x' })
        .expect(409);
      expect(patch.body).toMatchObject({ errorCode: 'CONFLICT' });
      await http()
        .delete(`/v1/wallet-pass/notifications/${sent.body.id}`)
        .set(owner.auth)
        .expect(409);
    });
  });

  it('fans a notification out to 10,000 WalletA devices', async () => {
    const { pass } = await passWithDevices(0);
    const repository = testApp.app.get(DataSource).getRepository(Registration);
    const now = new Date();
    const tokens: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const rows = Array.from({ length: 500 }, (_, i) => {
        const token = deviceToken(2_000_000 + batch * 500 + i);
        tokens.push(token);
        return {
          id: newId(),
          workspaceId: owner.defaultWorkspaceId,
          passId: pass.id,
          serialNumber: pass.id,
          deviceLibraryId: `fanout-${batch}-${i}`,
          pushToken: token,
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        };
      });
      await repository.insert(rows);
    }
    apns.reset();
    const started = Date.now();
    const created = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: pass.id,
        notificationName: 'Big',
        notificationMessage: 'To everyone',
      })
      .expect(201);
    await waitFor(
      async () => FINAL.includes((await notification(created.body.id)).status),
      'the fan-out',
      120_000,
    );
    const elapsed = Date.now() - started;
    const done = await notification(created.body.id);
    expect(done.appleNotificationSentCount).toBe(10_000);
    expect(new Set(apns.pushes.map((push) => push.token)).size).toBe(10_000);
    expect(apns.pushes).toHaveLength(10_000);
    process.stdout.write(`[notifications] 10,000-device notification fan-out: ${elapsed} ms\n`);
  });

  describe('delivery outcomes and crashes', () => {
    it('is Failed when neither platform accepts it (APNs answers 500 until retries run out)', async () => {
      const { pass, tokens } = await passWithDevices(1);
      apns.reset();
      apns.failNext(1000, 500, tokens[0]);
      const created = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Doomed', notificationMessage: 'x' })
        .expect(201);
      await settled(created.body.id);
      const done = await notification(created.body.id);
      expect(done).toMatchObject({
        status: 'Failed',
        appleNotificationSentCount: 0,
        totalNotificationSentCount: 0,
      });
      expect(done.failureReason).toContain('WalletA');
      apns.reset();
    });

    it('drops a device APNs calls Unregistered and counts only accepted pushes', async () => {
      const { pass, tokens } = await passWithDevices(3);
      apns.reset();
      apns.unregister(tokens[1]);
      const created = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: pass.id, notificationName: 'Partly', notificationMessage: 'x' })
        .expect(201);
      await settled(created.body.id);
      expect((await notification(created.body.id)).appleNotificationSentCount).toBe(2);
      const passBody = (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200))
        .body;
      expect(passBody).toMatchObject({ appleIssuedCount: 3, appleActiveCount: 2 });
    });

    it('resumes a fan-out a dead worker left halfway, without pushing again to devices already done', async () => {
      const { pass, tokens } = await passWithDevices(6);
      const dataSource = testApp.app.get(DataSource);
      const registrations = await dataSource
        .getRepository(Registration)
        .find({ where: { passId: pass.id }, order: { id: 'ASC' } });
      const now = new Date();
      const id = newId();
      // The state a worker killed after pushing three devices leaves behind.
      await dataSource.getRepository(Notification).insert({
        id,
        workspaceId: owner.defaultWorkspaceId,
        passId: pass.id,
        accountId: (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth)).body.accountId,
        notificationName: 'Crashed',
        notificationMessage: 'Resume me',
        status: 'Processing',
        scheduledTime: null,
        publishedTime: null,
        sentTime: now,
        appleNotificationSentCount: 0,
        googleNotificationSentCount: 0,
        totalNotificationSentCount: 0,
        leaseUntil: new Date(now.getTime() - 1000),
        leasedBy: 'dead-worker',
        attempts: 1,
        preparedVersion: 2,
        fanoutCursor: null,
        appleOutcome: null,
        googleOutcome: null,
        failureReason: null,
        createdTime: now,
        updatedTime: now,
        createdBy: null,
        updatedBy: null,
      });
      await dataSource.getRepository(NotificationDelivery).insert(
        registrations.slice(0, 3).map((registration) => ({
          id: newId(),
          notificationId: id,
          registrationId: registration.id,
          outcome: 'sent' as const,
          reason: null,
          createdTime: now,
        })),
      );
      apns.reset();
      await testApp.app.get(NotificationWorker).tick();
      await settled(id);
      expect(apns.pushes.map((push) => push.token).sort()).toEqual(tokens.slice(3).sort());
      expect((await notification(id)).appleNotificationSentCount).toBe(6);
    });
  });
});

// Several processes on one database is the MySQL set-up; SQLite is the single-process default
// (a second process would meet SQLite's file lock), so this runs in the MariaDB pass.
(TEST_DB === 'mysql' ? describe : describe.skip)('Two workers sharing one database', () => {
  let apns: ApnsFake;
  let first: TestApp;
  let second: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    first = await startTestApp({ ...walletA.env, WORKER_ENABLED: 'false' });
    // The second process reads and writes the first one's database.
    second = await startTestApp({ ...walletA.env, ...first.database.env, WORKER_ENABLED: 'false' });
    owner = await OwnerSession.start(first.server);
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    await apns.close();
  });

  it('delivers a backlog with every device pushed exactly once', async () => {
    const http = () => request(first.server);
    const allTokens: string[] = [];
    const ids: string[] = [];
    for (let p = 0; p < 6; p++) {
      const { pass, tokens } = await publishedPassWithDevices(owner, 15, {
        passName: `Backlog ${p}`,
      });
      allTokens.push(...tokens);
      const created = await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: `N${p}`,
          notificationMessage: `Message ${p}`,
        })
        .expect(201);
      ids.push(created.body.id);
    }
    apns.reset();
    const drain = async (worker: NotificationWorker) => {
      let taken = 0;
      for (let round = 0; round < 50; round++) {
        const n = await worker.tick();
        taken += n;
        if (n === 0) break;
      }
      return taken;
    };
    const [a, b] = await Promise.all([
      drain(first.app.get(NotificationWorker)),
      drain(second.app.get(NotificationWorker)),
    ]);
    expect(a + b).toBe(6);

    const tokensPushed = apns.pushes.map((push) => push.token);
    expect(tokensPushed).toHaveLength(allTokens.length);
    expect(new Set(tokensPushed).size).toBe(allTokens.length);
    for (const id of ids) {
      const body = (
        await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)
      ).body;
      expect(body).toMatchObject({
        status: 'AppleSuccessGoogleFailed',
        appleNotificationSentCount: 15,
      });
    }
  });
});

describe('Delivery to both wallets', () => {
  const ISSUER_ID = '3388000000099999999';
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
  const notification = async (id: string) =>
    (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)).body;

  /** A Published pass with two WalletA devices and one WalletB holder. */
  async function passWithHolders() {
    const { pass, tokens } = await publishedPassWithDevices(owner, 2, {
      notificationHeader: 'News',
    });
    const classId = `${ISSUER_ID}.${pass.id}`;
    await waitFor(() => google.classes.has(classId), 'the WalletB class');
    await http()
      .post('/callbacks/wallet-b')
      .send(
        google.callbackSigner.build(
          { classId, objectId: `${classId}-holder1`, eventType: 'save' },
          { recipientId: ISSUER_ID },
        ) as object,
      )
      .expect(200);
    return { pass, tokens, classId };
  }

  async function send(passId: string): Promise<Record<string, unknown>> {
    const created = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: passId,
        notificationName: 'Both',
        notificationMessage: 'Hello holders',
      })
      .expect(201);
    await waitFor(
      async () => FINAL.includes((await notification(created.body.id)).status),
      'delivery',
    );
    return notification(created.body.id);
  }

  it('is Published when both wallets accept it, with what each really accepted', async () => {
    const { pass, tokens, classId } = await passWithHolders();
    apns.reset();
    const done = await send(pass.id);
    expect(done).toMatchObject({
      status: 'Published',
      appleNotificationSentCount: 2,
      googleNotificationSentCount: 1,
      totalNotificationSentCount: 3,
      failureReason: null,
    });
    expect(apns.pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());
    const messages = (google.classes.get(classId)?.messages ?? []) as {
      body: string;
      messageType: string;
    }[];
    expect(messages).toEqual([
      expect.objectContaining({ body: 'Hello holders', messageType: 'TEXT_AND_NOTIFY' }),
    ]);
  });

  it('is AppleFailedGoogleSuccess when APNs refuses every push', async () => {
    const { pass, tokens } = await passWithHolders();
    apns.reset();
    for (const token of tokens) apns.failNext(1000, 500, token);
    const done = await send(pass.id);
    expect(done).toMatchObject({
      status: 'AppleFailedGoogleSuccess',
      appleNotificationSentCount: 0,
      googleNotificationSentCount: 1,
    });
    expect(done.failureReason).toContain('WalletA');
    apns.reset();
  });

  it('is AppleSuccessGoogleFailed when Google keeps failing', async () => {
    const { pass, classId } = await passWithHolders();
    apns.reset();
    google.failNext(1000, 500, `/walletobjects/v1/loyaltyClass/${classId}/addMessage`);
    const done = await send(pass.id);
    expect(done).toMatchObject({
      status: 'AppleSuccessGoogleFailed',
      appleNotificationSentCount: 2,
      googleNotificationSentCount: 0,
    });
    expect(done.failureReason).toContain('WalletB');
    google.reset();
  });
});
