import { newId } from '@app/core';
import {
  Notification,
  NOTIFICATION_CHANNELS,
  NotificationShard,
  NotificationShardWorker,
  NotificationWorker,
  type NotificationChannel,
} from '@app/notifications';
import { AudiencesService } from '@app/audiences';
import { GOOGLE_SAVE_URL_PREFIX } from '@app/wallet-b';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from './fakes/apns-fake';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { binaryBody } from './support/pkpass';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';
import {
  deviceToken,
  notifyAndWait,
  packageAuthToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  registerDevice,
  startWalletAApp,
  startWalletAEnv,
  waitFor,
  type WalletAApp,
} from './support/walleta-env';

const ISSUER_ID = '3388000000077777777';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const metadata = {
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  topField: { key: 'points', label: 'Points', value: '0' },
  secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Basic' }],
};

/** Gold members in Zurich. */
const GOLD_IN_ZURICH = { all: [{ tag: 'gold' }, { attribute: 'city', eq: 'Zurich' }] };

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  googleSaveUrl: string | null;
}

/** A holder as this suite sees it: its WalletA device and token, its WalletB object. */
interface Member extends HolderBody {
  name: string;
  pushToken: string;
  authToken: string;
  objectId: string;
}

type NotificationBody = Record<string, unknown> & { id: string };

/**
 * Notifications to an audience or a segment through the real HTTP app, with the
 * APNs and Google fakes: only the holders matched when it is sent are reached, on their own
 * devices and WalletB objects; never the shared pass's devices or anyone else.
 */
describe(`Notifications to audiences (${TEST_DB})`, () => {
  let apns: ApnsFake;
  let google: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let dataSource: DataSource;
  let pass: { id: string; slug: string };
  let sharedToken: string;
  let classId: string;
  const members: Record<string, Member> = {};
  let deviceSeed = 5000;

  const http = () => request(testApp.server);
  const holders = () => `/v1/wallet-pass/${pass.id}/holders`;
  const notificationPath = (id: string) => `/v1/wallet-pass/notifications/${id}`;
  const notification = async (id: string) =>
    (await http().get(notificationPath(id)).set(owner.auth).expect(200)).body as NotificationBody;
  const notify = (fields: Record<string, unknown>) =>
    notifyAndWait(owner, pass.id, { notificationMessage: 'Hello', ...fields });
  const create = (fields: Record<string, unknown>) =>
    http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: pass.id,
        notificationName: 'Audience',
        notificationMessage: 'Hello',
        ...fields,
      });

  const pushed = (token: string) => apns.pushesFor(token).length;
  /** Who got a push since the last reset, by name ('shared' for the shared pass's device). */
  const reachedDevices = () =>
    [
      ...Object.values(members)
        .filter((member) => pushed(member.pushToken) > 0)
        .map((member) => member.name),
      ...(pushed(sharedToken) > 0 ? ['shared'] : []),
    ].sort();
  const messagesOf = (resource: unknown) =>
    ((resource as { messages?: { id: string; body: string }[] } | undefined)?.messages ?? []).map(
      (message) => message.id,
    );
  /** Whose WalletB object carries the notification's message. */
  const reachedObjects = (notificationId: string) =>
    Object.values(members)
      .filter((member) => messagesOf(google.objects.get(member.objectId)).includes(notificationId))
      .map((member) => member.name)
      .sort();
  /** The package a holder's device fetches now, as text (its pass.json is stored uncompressed). */
  const packageText = async (serial: string, authToken: string) => {
    const response = await http()
      .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    return (response.body as Buffer).toString('latin1');
  };
  const snapshotSize = async (notificationId: string) => {
    const [row] = await dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM audience_member WHERE snapshot_id = ?',
      [notificationId],
    );
    return Number(row.n);
  };
  const tag = (member: Member, tags: string[]) =>
    http().patch(`${holders()}/${member.id}`).set(owner.auth).send({ tags }).expect(200);

  /** A holder with `tags` and `attributes`, one WalletA device and a saved WalletB object. */
  async function member(
    name: string,
    tags: string[],
    attributes: Record<string, string | number>,
  ): Promise<Member> {
    const holder = (
      await http()
        .post(holders())
        .set(owner.auth)
        .send({ externalId: name, tags, attributes })
        .expect(201)
    ).body as HolderBody;
    const authToken = await packageAuthToken(
      testApp.server,
      `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
    );
    const pushToken = deviceToken(++deviceSeed);
    await registerDevice(
      testApp.server,
      holder.serialNumber,
      authToken,
      `device-${name}`,
      pushToken,
    );
    // Saved to a WalletB account: the object its save link carries, then Google's callback.
    const redirect = await http().get(new URL(holder.googleSaveUrl!).pathname).expect(302);
    const jwt = verifyRs256Jwt(
      String(redirect.headers.location).slice(GOOGLE_SAVE_URL_PREFIX.length),
      google.publicKey,
    );
    const object = (jwt.claims.payload as { loyaltyObjects: Record<string, unknown>[] })
      .loyaltyObjects[0];
    google.saveObject(object);
    const objectId = String(object.id);
    await http()
      .post('/callbacks/wallet-b')
      .send(
        google.callbackSigner.build(
          { classId, objectId, eventType: 'save' },
          { recipientId: ISSUER_ID },
        ) as object,
      )
      .expect(200);
    return { ...holder, name, pushToken, authToken, objectId };
  }

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    google = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      ...walletA.env,
      ...google.serviceEnv(),
      PUBLIC_BASE_URL: 'https://wallet.test',
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    dataSource = testApp.app.get(DataSource);
    const shared = await publishedPassWithDevices(owner, 1, {
      passName: 'Audience card',
      passMetadata: metadata,
      notificationHeader: 'Brand news',
    });
    pass = shared.pass;
    sharedToken = shared.tokens[0];
    classId = `${ISSUER_ID}.${pass.id}`;
    await waitFor(() => google.classes.has(classId), 'the WalletB class');
    // Alice and Erin are gold in Zurich; Bob is gold elsewhere, Carol in Zurich but silver.
    members.alice = await member('alice', ['gold'], { city: 'Zurich', visits: 12 });
    members.bob = await member('bob', ['gold'], { city: 'Bern', visits: 3 });
    members.carol = await member('carol', ['silver', 'vip'], { city: 'Zurich' });
    members.erin = await member('erin', ['gold', 'vip'], { city: 'Zurich', visits: 40 });
    // Let the installs' own work settle before pushes are counted.
    await sleep(500);
  }, 120_000);
  afterAll(async () => {
    await testApp?.close();
    await apns?.close();
    await google?.close();
  });

  it("reaches exactly the matched holders' devices and objects, never the shared pass", async () => {
    apns.reset();
    const done = await notify({ audience: GOLD_IN_ZURICH, notificationMessage: 'Gold night' });
    expect(done).toMatchObject({
      status: 'Published',
      holderIds: null,
      segmentId: null,
      audience: GOLD_IN_ZURICH,
      audienceSize: 2,
      appleNotificationSentCount: 2,
      googleNotificationSentCount: 2,
      totalNotificationSentCount: 4,
    });
    expect(reachedDevices()).toEqual(['alice', 'erin']);
    expect(reachedObjects(done.id)).toEqual(['alice', 'erin']);
    expect(messagesOf(google.classes.get(classId))).not.toContain(done.id);
    // The message is on the matched holders' passes only.
    expect(await packageText(members.alice.serialNumber, members.alice.authToken)).toContain(
      'Gold night',
    );
    expect(await packageText(members.bob.serialNumber, members.bob.authToken)).not.toContain(
      'Gold night',
    );
    expect(
      await packageText(
        pass.id,
        await packageAuthToken(testApp.server, `/p/${pass.slug}/pass.pkpass`),
      ),
    ).not.toContain('Gold night');
    expect(await snapshotSize(done.id)).toBe(2);
  });

  it('matches by a number attribute, and shows the audience and its size', async () => {
    apns.reset();
    const audience = { attribute: 'visits', gte: 10 };
    const done = await notify({ audience });
    expect(done).toMatchObject({ status: 'Published', audience, audienceSize: 2 });
    expect(reachedDevices()).toEqual(['alice', 'erin']);
  });

  it('ends a notification whose audience has an in list of 1,000 values, mixed types', async () => {
    apns.reset();
    const others = Array.from({ length: 997 }, (_, index) => `City ${index}`);
    const audience = { attribute: 'city', in: [...others, 'Zurich', 12, true] };
    const done = await notify({ audience });
    expect(done).toMatchObject({ status: 'Published', audienceSize: 3 });
    expect(reachedDevices()).toEqual(['alice', 'carol', 'erin']);
  });

  it("sends to a segment: shown with its id, the segment's audience once sent", async () => {
    const segment = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Gold in Zurich', audience: GOLD_IN_ZURICH })
        .expect(201)
    ).body as { id: string };
    const draft = await create({ segmentId: segment.id, status: 'Draft' }).expect(201);
    expect(draft.body).toMatchObject({
      segmentId: segment.id,
      audience: null,
      audienceSize: null,
      holderIds: null,
    });
    apns.reset();
    await http()
      .patch(notificationPath(draft.body.id))
      .set(owner.auth)
      .send({ status: 'Processing', notificationMessage: 'For the segment' })
      .expect(200);
    await waitFor(
      async () => (await notification(draft.body.id)).publishedTime !== null,
      'the segment notification',
    );
    expect(await notification(draft.body.id)).toMatchObject({
      status: 'Published',
      segmentId: segment.id,
      audience: GOLD_IN_ZURICH,
      audienceSize: 2,
      appleNotificationSentCount: 2,
      googleNotificationSentCount: 2,
    });
    expect(reachedDevices()).toEqual(['alice', 'erin']);
    expect(reachedObjects(draft.body.id)).toEqual(['alice', 'erin']);
  });

  it('sends a Scheduled notification to whoever its segment matches at its time', async () => {
    const vip = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'VIP', audience: { tag: 'vip' } })
        .expect(201)
    ).body as { id: string };
    const scheduled = await create({
      segmentId: vip.id,
      status: 'Scheduled',
      scheduledTime: new Date(Date.now() + 3000).toISOString(),
      notificationMessage: 'VIP evening',
    }).expect(201);
    // Meanwhile Bob becomes a VIP and Carol no longer is one.
    await tag(members.bob, ['gold', 'vip']);
    await tag(members.carol, ['silver']);
    await sleep(300);
    apns.reset();
    expect((await notification(scheduled.body.id)).status).toBe('Scheduled');
    await waitFor(
      async () => (await notification(scheduled.body.id)).publishedTime !== null,
      'the scheduled notification',
    );
    expect(await notification(scheduled.body.id)).toMatchObject({
      status: 'Published',
      audience: { tag: 'vip' },
      audienceSize: 2,
    });
    expect(reachedDevices()).toEqual(['bob', 'erin']);
    expect(reachedObjects(scheduled.body.id)).toEqual(['bob', 'erin']);
    expect(await packageText(members.carol.serialNumber, members.carol.authToken)).not.toContain(
      'VIP evening',
    );
  });

  it('refuses more than one target, a bad audience and another pass’s segment (400)', async () => {
    const two = await create({
      audience: GOLD_IN_ZURICH,
      segmentId: '019a2b3c-6666-7f60-8a1b-2c3d4e5f6a7b',
    }).expect(400);
    expect(two.body).toMatchObject({
      errorCode: 'INVALID_INPUT',
      context: {
        audience: 'give only one of holderIds, audience, segmentId',
        segmentId: 'give only one of holderIds, audience, segmentId',
      },
    });
    const three = await create({
      holderIds: [members.alice.id],
      audience: GOLD_IN_ZURICH,
    }).expect(400);
    expect(Object.keys(three.body.context as object).sort()).toEqual(['audience', 'holderIds']);

    const bad = await create({
      audience: {
        all: [
          { field: 'nickname', eq: 'x' },
          { attribute: 'visits', gte: {} },
        ],
      },
    }).expect(400);
    expect(Object.keys(bad.body.context as object).sort()).toEqual([
      'audience.all.0.field',
      'audience.all.1.gte',
    ]);

    const other = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    const foreign = (
      await http()
        .post(`/v1/wallet-pass/${other.pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Elsewhere', audience: { tag: 'gold' } })
        .expect(201)
    ).body as { id: string };
    const wrongPass = await create({ segmentId: foreign.id }).expect(400);
    expect(wrongPass.body.context).toEqual({ segmentId: 'is not a segment of this pass' });
    const unknown = await create({ segmentId: '019a2b3c-6666-7f60-8a1b-2c3d4e5f6a7b' }).expect(400);
    expect(unknown.body.context).toEqual({ segmentId: 'is not a segment of this pass' });

    // Moving a Draft to another pass checks its segment against that pass.
    const own = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Moving', audience: { tag: 'gold' } })
        .expect(201)
    ).body as { id: string };
    const draft = await create({ segmentId: own.id, status: 'Draft' }).expect(201);
    const moved = await http()
      .patch(notificationPath(draft.body.id))
      .set(owner.auth)
      .send({ passSerialNumber: other.pass.id })
      .expect(400);
    expect(moved.body.context).toEqual({ segmentId: 'is not a segment of this pass' });
    await http().delete(notificationPath(draft.body.id)).set(owner.auth).expect(204);
  });

  it('clears the other targets when PATCH sets one', async () => {
    const draft = await create({ holderIds: [members.alice.id], status: 'Draft' }).expect(201);
    const withAudience = await http()
      .patch(notificationPath(draft.body.id))
      .set(owner.auth)
      .send({ audience: GOLD_IN_ZURICH })
      .expect(200);
    expect(withAudience.body).toMatchObject({
      holderIds: null,
      audience: GOLD_IN_ZURICH,
      segmentId: null,
    });
    const everyone = await http()
      .patch(notificationPath(draft.body.id))
      .set(owner.auth)
      .send({ audience: null, notificationName: 'Renamed' })
      .expect(200);
    expect(everyone.body).toMatchObject({ holderIds: null, audience: null, segmentId: null });
    await http().delete(notificationPath(draft.body.id)).set(owner.auth).expect(204);
  });

  it('keeps a segment a Draft uses (409), and fails a notification whose segment is gone', async () => {
    const segment = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'In use', audience: { tag: 'gold' } })
        .expect(201)
    ).body as { id: string };
    const segmentPath = `/v1/wallet-pass/${pass.id}/segments/${segment.id}`;
    const draft = await create({ segmentId: segment.id, status: 'Draft' }).expect(201);
    const refused = await http().delete(segmentPath).set(owner.auth).expect(409);
    expect(refused.body).toMatchObject({
      errorCode: 'CONFLICT',
      errorMessage: expect.stringContaining(draft.body.id),
      context: { segmentId: segment.id },
    });
    // Given another audience, the Draft no longer holds the segment.
    await http()
      .patch(notificationPath(draft.body.id))
      .set(owner.auth)
      .send({ audience: { tag: 'gold' } })
      .expect(200);
    await http().delete(segmentPath).set(owner.auth).expect(204);

    // A segment gone by the time the notification is sent (deleted behind the API's back).
    const gone = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Gone', audience: { tag: 'gold' } })
        .expect(201)
    ).body as { id: string };
    const later = await create({ segmentId: gone.id, status: 'Draft' }).expect(201);
    await dataSource.query('DELETE FROM segment WHERE id = ?', [gone.id]);
    apns.reset();
    await http()
      .patch(notificationPath(later.body.id))
      .set(owner.auth)
      .send({ status: 'Processing', notificationMessage: 'Nobody' })
      .expect(200);
    await waitFor(
      async () => (await notification(later.body.id)).publishedTime !== null,
      'the notification to fail',
    );
    expect(await notification(later.body.id)).toMatchObject({
      status: 'Failed',
      failureReason: 'The segment was deleted before the notification went out',
      audienceSize: null,
    });
    expect(apns.pushes).toHaveLength(0);
    await http().delete(notificationPath(draft.body.id)).set(owner.auth).expect(204);
  });

  it('never takes a second snapshot: a resumed delivery reaches the holders of the first', async () => {
    const draft = await create({ audience: GOLD_IN_ZURICH, status: 'Draft' }).expect(201);
    const id = (draft.body as { id: string }).id;
    // A worker wrote down Alice alone (the audience as it matched then) and died before sending.
    await dataSource.query('INSERT INTO audience_member (snapshot_id, holder_id) VALUES (?, ?)', [
      id,
      members.alice.id,
    ]);
    apns.reset();
    await dataSource.query(
      "UPDATE notification SET status = 'Processing', audience_size = 1, " +
        "notification_message = 'Resumed' WHERE id = ?",
      [id],
    );
    await waitFor(async () => (await notification(id)).publishedTime !== null, 'the resumed one');
    expect(await notification(id)).toMatchObject({
      status: 'Published',
      audienceSize: 1,
      appleNotificationSentCount: 1,
      googleNotificationSentCount: 1,
    });
    expect(reachedDevices()).toEqual(['alice']);
    expect(reachedObjects(id)).toEqual(['alice']);
    expect(await snapshotSize(id)).toBe(1);
  });
});

describe(`Audience notifications, the worker run by the test (${TEST_DB})`, () => {
  let walletA: WalletAApp;

  beforeAll(async () => {
    // The test runs the worker itself.
    walletA = await startWalletAApp({ WORKER_ENABLED: 'false', SNAPSHOT_BATCH_SIZE: '2' });
  });
  afterAll(() => walletA?.close());

  it('writes the snapshot in batches; a worker that loses its lease mid-way leaves the batches committed, and the next goes on after them', async () => {
    const { testApp, owner } = walletA;
    const http = () => request(testApp.server);
    const dataSource = testApp.app.get(DataSource);
    const { pass } = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    for (let index = 0; index < 5; index++) {
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: `batch-${index}`, tags: ['gold'] })
        .expect(201);
    }
    const { id } = (
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Batches',
          notificationMessage: 'Hi',
          audience: { tag: 'gold' },
        })
        .expect(201)
    ).body as { id: string };
    const members = async () =>
      (
        await dataSource.query<{ holder_id: string }[]>(
          'SELECT holder_id FROM audience_member WHERE snapshot_id = ? ORDER BY holder_id',
          [id],
        )
      ).map((row) => row.holder_id);

    // The second batch is taken over by another worker: it rolls back, the first stays.
    const audiences = testApp.app.get(AudiencesService);
    const snapshotBatch = audiences.snapshotBatch.bind(audiences);
    const afters: (string | null)[] = [];
    let takenOver = false;
    const spy = jest
      .spyOn(audiences, 'snapshotBatch')
      .mockImplementation(async (manager, snapshotId, batchPass, condition, after, limit) => {
        afters.push(after);
        const batch = await snapshotBatch(manager, snapshotId, batchPass, condition, after, limit);
        if (afters.length === 2 && !takenOver) {
          takenOver = true;
          await manager.query("UPDATE notification SET leased_by = 'another-worker' WHERE id = ?", [
            snapshotId,
          ]);
        }
        return batch;
      });
    const worker = testApp.app.get(NotificationWorker);
    try {
      await worker.tick();
      const first = await members();
      expect(first).toHaveLength(2);
      expect(afters).toEqual([null, first[1]]);

      // Its lease runs out; the next attempt goes on after the first batch, never before it.
      await dataSource.query(
        'UPDATE notification SET lease_until = NULL, leased_by = NULL WHERE id = ?',
        [id],
      );
      afters.length = 0;
      await worker.tick();
      expect(afters[0]).toBe(first[1]);
      expect(afters).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
    const all = await members();
    expect(all).toHaveLength(5);
    expect(new Set(all).size).toBe(5);
    expect(
      (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)).body,
    ).toMatchObject({ audienceSize: 5, audience: { tag: 'gold' } });
  });

  it('writes chosen holders down in the same checkpointed batches, before any channel runs, which gets the snapshot', async () => {
    const { testApp, owner } = walletA;
    const http = () => request(testApp.server);
    const dataSource = testApp.app.get(DataSource);
    const { pass } = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    const holderIds: string[] = [];
    for (let index = 0; index < 5; index++) {
      const created = await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: `chosen-${index}` })
        .expect(201);
      holderIds.push((created.body as { id: string }).id);
    }
    const chosen = [holderIds[4], holderIds[0], holderIds[2]];
    const { id } = (
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Chosen',
          notificationMessage: 'Hi',
          holderIds: chosen,
        })
        .expect(201)
    ).body as { id: string };
    const members = async () =>
      (
        await dataSource.query<{ holder_id: string }[]>(
          'SELECT holder_id FROM audience_member WHERE snapshot_id = ? ORDER BY holder_id',
          [id],
        )
      ).map((row) => row.holder_id);
    const inOrder = [...chosen].sort();

    // The second batch is taken over by another worker: it rolls back, the first stays.
    const audiences = testApp.app.get(AudiencesService);
    const snapshotIds = audiences.snapshotIds.bind(audiences);
    const batches: string[][] = [];
    const spy = jest
      .spyOn(audiences, 'snapshotIds')
      .mockImplementation(async (manager, snapshotId, batchPass, ids) => {
        batches.push([...ids]);
        await snapshotIds(manager, snapshotId, batchPass, ids);
        if (batches.length === 2) {
          await manager.query("UPDATE notification SET leased_by = 'another-worker' WHERE id = ?", [
            snapshotId,
          ]);
        }
      });
    // What each channel was given, and the snapshot as it was then.
    const seen: { platform: string; recipients: unknown; members: string[] }[] = [];
    const channelSpies = testApp.app
      .get<readonly NotificationChannel[]>(NOTIFICATION_CHANNELS)
      .map((channel) => {
        const deliver = channel.deliver.bind(channel);
        return jest
          .spyOn(channel, 'deliver')
          .mockImplementation(async (notification, channelPass, recipients, checkpoint) => {
            seen.push({ platform: channel.platform, recipients, members: await members() });
            return deliver(notification, channelPass, recipients, checkpoint);
          });
      });
    const worker = testApp.app.get(NotificationWorker);
    try {
      await worker.tick();
      expect(batches).toEqual([inOrder.slice(0, 2), inOrder.slice(2)]);
      expect(await members()).toEqual(inOrder.slice(0, 2));
      expect(seen).toEqual([]);

      // Its lease runs out; the next attempt goes on after the first batch, never before it.
      await dataSource.query(
        'UPDATE notification SET lease_until = NULL, leased_by = NULL WHERE id = ?',
        [id],
      );
      batches.length = 0;
      await worker.tick();
      expect(batches).toEqual([inOrder.slice(2)]);
    } finally {
      spy.mockRestore();
      for (const channelSpy of channelSpies) channelSpy.mockRestore();
    }
    const snapshot = { kind: 'snapshot', notificationId: id, size: chosen.length };
    expect(seen).toEqual([
      { platform: 'apple', recipients: snapshot, members: inOrder },
      { platform: 'google', recipients: snapshot, members: inOrder },
    ]);
    expect(await members()).toEqual(inOrder);
    expect(
      (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)).body,
    ).toMatchObject({
      holderIds: chosen,
      audience: null,
      audienceSize: null,
      publishedTime: expect.any(String),
    });
  });

  it('leaves a shard an older worker cut for chosen holders open until they are written down', async () => {
    const { testApp, owner } = walletA;
    const http = () => request(testApp.server);
    const dataSource = testApp.app.get(DataSource);
    const { pass } = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    const created = await http()
      .post(`/v1/wallet-pass/${pass.id}/holders`)
      .set(owner.auth)
      .send({ externalId: 'older-cut' })
      .expect(201);
    const holderId = (created.body as { id: string }).id;
    const { id } = (
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Cut before snapshots',
          notificationMessage: 'Hi',
          holderIds: [holderId],
        })
        .expect(201)
    ).body as { id: string };
    // As an older worker left it: prepared and cut into one shard, its chosen holders not
    // written down, its lease run out.
    const notifications = dataSource.getRepository(Notification);
    const { workspaceId } = await notifications.findOneByOrFail({ id });
    const now = new Date();
    await notifications.update(id, {
      status: 'Processing',
      preparedVersion: 1,
      sentTime: now,
      shardCount: 1,
      leaseUntil: null,
      leasedBy: null,
    });
    const shards = dataSource.getRepository(NotificationShard);
    await shards.insert({
      id: newId(),
      workspaceId,
      notificationId: id,
      position: 0,
      afterId: null,
      upToId: null,
      fanoutCursor: null,
      state: 'open',
      leaseUntil: null,
      leasedBy: null,
      attempts: 0,
      createdTime: now,
      updatedTime: now,
      createdBy: null,
      updatedBy: null,
    });
    const members = async () =>
      (
        await dataSource.query<{ holder_id: string }[]>(
          'SELECT holder_id FROM audience_member WHERE snapshot_id = ?',
          [id],
        )
      ).map((row) => row.holder_id);

    // Another process's shard worker claims it first: it pushes nothing while whom it reaches is
    // unknown, and leaves it open.
    await testApp.app.get(NotificationShardWorker).tick();
    const claimed = await shards.findOneByOrFail({ notificationId: id });
    expect(claimed).toMatchObject({ state: 'open', fanoutCursor: null });
    expect(claimed.leasedBy).not.toBeNull();
    expect(await members()).toEqual([]);

    // Its lease runs out; the notification's worker writes the holders down, then pushes it.
    await shards.update(claimed.id, { leaseUntil: null, leasedBy: null });
    await testApp.app.get(NotificationWorker).tick();
    expect(await members()).toEqual([holderId]);
    expect(await shards.findOneByOrFail({ notificationId: id })).toMatchObject({ state: 'done' });
    expect(
      (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200)).body,
    ).toMatchObject({
      holderIds: [holderId],
      audienceSize: null,
      publishedTime: expect.any(String),
    });
  });

  it('a worker that loses its lease commits neither the snapshot nor audienceSize; the next takes the only one', async () => {
    const { testApp, owner } = walletA;
    const http = () => request(testApp.server);
    const dataSource = testApp.app.get(DataSource);
    const { pass } = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    for (const externalId of ['gold-1', 'gold-2']) {
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId, tags: ['gold'] })
        .expect(201);
    }
    const { id } = (
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: pass.id,
          notificationName: 'Lost lease',
          notificationMessage: 'Hi',
          audience: { tag: 'gold' },
        })
        .expect(201)
    ).body as { id: string };
    const read = async () =>
      (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200))
        .body as NotificationBody;
    const snapshotSize = async () =>
      Number(
        (
          await dataSource.query<{ n: number | string }[]>(
            'SELECT COUNT(*) AS n FROM audience_member WHERE snapshot_id = ?',
            [id],
          )
        )[0].n,
      );

    // Another worker takes the notification over while this one writes the snapshot down.
    const audiences = testApp.app.get(AudiencesService);
    const snapshotBatch = audiences.snapshotBatch.bind(audiences);
    const spy = jest
      .spyOn(audiences, 'snapshotBatch')
      .mockImplementation(async (manager, snapshotId, ...rest) => {
        const batch = await snapshotBatch(manager, snapshotId, ...rest);
        await manager.query("UPDATE notification SET leased_by = 'another-worker' WHERE id = ?", [
          snapshotId,
        ]);
        return batch;
      });
    const worker = testApp.app.get(NotificationWorker);
    let snapshots: number;
    try {
      await worker.tick();
      snapshots = spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
    expect(snapshots).toBe(1);
    expect(await snapshotSize()).toBe(0);
    expect(await read()).toMatchObject({ status: 'Processing', audienceSize: null });

    // Its lease runs out; the next attempt evaluates the audience, once.
    await dataSource.query('UPDATE notification SET lease_until = NULL WHERE id = ?', [id]);
    await worker.tick();
    expect(await read()).toMatchObject({ audienceSize: 2, publishedTime: expect.any(String) });
    expect(await snapshotSize()).toBe(2);
  });
  it('keeps a segment a notification being sent has not read yet (409), not once it has', async () => {
    const { testApp, owner } = walletA;
    const http = () => request(testApp.server);
    const { pass } = await publishedPassWithDevices(owner, 0, { passMetadata: metadata });
    const segment = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Going out', audience: { tag: 'gold' } })
        .expect(201)
    ).body as { id: string };
    const segmentPath = `/v1/wallet-pass/${pass.id}/segments/${segment.id}`;
    // Sent now, but no worker has taken it yet.
    await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: pass.id,
        notificationName: 'Now',
        notificationMessage: 'Hi',
        segmentId: segment.id,
      })
      .expect(201);
    const refused = await http().delete(segmentPath).set(owner.auth).expect(409);
    expect(refused.body.errorMessage).toContain('is being sent to this segment');
    await testApp.app.get(NotificationWorker).tick();
    await http().delete(segmentPath).set(owner.auth).expect(204);
  });
});
