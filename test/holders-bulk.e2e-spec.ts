import { RetentionWorker, ServiceEvents, sqlDialect, type RecordedEvent } from '@app/core';
import { AudiencesService, HolderBulkChangeWorker } from '@app/audiences';
import { GOOGLE_SAVE_URL_PREFIX } from '@app/wallet-b';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ApnsFake } from './fakes/apns-fake';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { binaryBody, openPackage } from './support/pkpass';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';
import {
  deviceToken,
  packageAuthToken,
  registerDevice,
  startWalletAEnv,
  waitFor,
} from './support/walleta-env';

const ISSUER_ID = '3388000000033335555';
const DAY_MS = 24 * 3600 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  topField: { key: 'points', label: 'Points', value: '0', changeMessage: 'You now have %@ points' },
  secondaryFields: [
    { key: 'tier', label: 'Tier', value: 'Basic' },
    { key: 'balance', label: 'Balance', value: '0.1' },
  ],
  qrUrl: 'https://brand.example/member',
  qrText: 'Member',
};

interface HolderBody {
  id: string;
  externalId: string;
  serialNumber: string;
  status: string;
  downloadUrl: string;
  googleSaveUrl: string | null;
  fieldValues: Record<string, string>;
  tags: string[];
  attributes: Record<string, unknown>;
  barcodeText: string | null;
  updatedTime: string;
}

interface BulkChangeBody {
  id: string;
  passId: string;
  status: string;
  matched: number | null;
  updated: number;
  skipped: number;
  failureReason: string | null;
  createdTime: string;
  finishedTime: string | null;
}

/** A Published loyalty pass, with the images a pass needs to be Published. */
async function publishedPass(owner: OwnerSession, passName: string): Promise<{ id: string }> {
  const uploadInfoList = [];
  for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
    uploadInfoList.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
  }
  return (
    await request(owner.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName, passMetadata: METADATA, status: 'Published', uploadInfoList })
      .expect(201)
  ).body as { id: string };
}

/** Holders imported in one request, as the API shows them, by externalId. */
async function importHolders(
  server: Server,
  owner: OwnerSession,
  passId: string,
  rows: Record<string, unknown>[],
): Promise<Record<string, HolderBody>> {
  await request(server)
    .post(`/v1/wallet-pass/${passId}/holders/import`)
    .set(owner.auth)
    .send(rows)
    .expect(200);
  const page = await request(server)
    .get(`/v1/wallet-pass/${passId}/holders?limit=20`)
    .set(owner.auth)
    .expect(200);
  const holders = (page.body as { items: HolderBody[] }).items;
  return Object.fromEntries(holders.map((holder) => [holder.externalId, holder]));
}

/**
 * Bulk changes of holders through the real HTTP app, its embedded worker, an
 * APNs fake and a Google Wallet fake: each changed holder is changed as a PATCH would change it.
 */
describe(`Bulk changes of holders (${TEST_DB})`, () => {
  let apns: ApnsFake;
  let google: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let pass: { id: string };
  let holders: Record<string, HolderBody>;
  let classId: string;
  let certDir: string;
  const events: RecordedEvent[] = [];
  const tokens = { alice: deviceToken(0xb01), bob: deviceToken(0xb02) };

  const http = () => request(testApp.server);
  const bulkPath = (passId = pass.id) => `/v1/wallet-pass/${passId}/holders/bulk`;
  const holderOf = async (externalId: string) =>
    (
      await http()
        .get(`/v1/wallet-pass/${pass.id}/holders/${holders[externalId].id}`)
        .set(owner.auth)
        .expect(200)
    ).body as HolderBody;
  const objectIdOf = (externalId: string) => `${ISSUER_ID}.${holders[externalId].serialNumber}`;
  const objectPatches = (externalId: string) =>
    google.callsTo('PATCH', `/walletobjects/v1/loyaltyObject/${objectIdOf(externalId)}`);
  const updatedEvents = (since: number) =>
    events
      .slice(since)
      .filter((event) => event.type === 'holder.updated')
      .map((event) => event.data as unknown as HolderBody);

  /** Makes a bulk change and waits until the worker finished it. */
  async function bulk(body: Record<string, unknown>): Promise<BulkChangeBody> {
    const created = await http().post(bulkPath()).set(owner.auth).send(body).expect(202);
    const change = created.body as BulkChangeBody;
    expect(change).toMatchObject({ passId: pass.id, status: 'Pending', matched: null });
    let read = change;
    await waitFor(async () => {
      read = (await http().get(`${bulkPath()}/${change.id}`).set(owner.auth).expect(200))
        .body as BulkChangeBody;
      return read.status === 'Done' || read.status === 'Failed';
    }, 'the bulk change to finish');
    return read;
  }

  /** Alice's device and Bob's (WalletA), and Alice's object saved on WalletB. */
  async function install(): Promise<void> {
    for (const name of ['alice', 'bob'] as const) {
      const holder = holders[name];
      const path = `${new URL(holder.downloadUrl).pathname}/pass.pkpass`;
      const authToken = await packageAuthToken(testApp.server, path);
      await registerDevice(
        testApp.server,
        holder.serialNumber,
        authToken,
        `dev-${name}`,
        tokens[name],
      );
    }
    const alice = holders.alice;
    const redirect = await http().get(new URL(alice.googleSaveUrl!).pathname).expect(302);
    const url = redirect.headers.location;
    const jwt = verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), google.publicKey);
    const object = (jwt.claims.payload as { loyaltyObjects: Record<string, unknown>[] })
      .loyaltyObjects[0];
    google.saveObject(object);
    await http()
      .post('/callbacks/wallet-b')
      .send(
        google.callbackSigner.build(
          { classId, objectId: objectIdOf('alice'), eventType: 'save' },
          { recipientId: ISSUER_ID },
        ),
      )
      .expect(200);
  }

  beforeAll(async () => {
    const walletA = await startWalletAEnv();
    apns = walletA.apns;
    certDir = walletA.certDir;
    google = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...walletA.env,
      ...google.serviceEnv(),
      SCHEDULER_INTERVAL_MS: '200',
      // Several batches even for these few holders.
      BULK_CHANGE_BATCH_SIZE: '2',
    });
    testApp.app.get(ServiceEvents).listen((_manager, recorded) => {
      events.push(...recorded);
      return Promise.resolve();
    });
    owner = await OwnerSession.start(testApp.server);
    pass = await publishedPass(owner, 'Bulk card');
    classId = `${ISSUER_ID}.${pass.id}`;
    await waitFor(() => google.classes.has(classId), 'the class');
    holders = await importHolders(testApp.server, owner, pass.id, [
      {
        externalId: 'alice',
        fieldValues: { points: '250' },
        tags: ['gold', 'zurich'],
        attributes: { city: 'Zurich', visits: 2 },
      },
      {
        externalId: 'bob',
        tags: ['silver', 'zurich'],
        attributes: { city: 'Zurich', visits: 'x' },
      },
      { externalId: 'carol', fieldValues: { points: 'lots' }, tags: ['gold'] },
      {
        externalId: 'dave',
        fieldValues: { points: '10' },
        tags: ['gold'],
        attributes: { visits: 1 },
      },
      { externalId: 'erin', fieldValues: { points: '7' }, tags: ['bronze'] },
    ]);
    await http()
      .delete(`/v1/wallet-pass/${pass.id}/holders/${holders.dave.id}`)
      .set(owner.auth)
      .expect(204);
    await install();
  });
  afterAll(async () => {
    await testApp?.close();
    await apns?.close();
    await google?.close();
  });

  it('increments and tags an audience: pushed, WalletB object patched, holder.updated sent', async () => {
    // The pushes and syncs the set-up queued are another test's business.
    await sleep(500);
    apns.reset();
    google.reset();
    const since = events.length;
    const versionBefore = await testApp.app
      .get(DataSource)
      .query<{ version: number }[]>('SELECT version FROM holder WHERE id = ?', [holders.alice.id]);

    const change = await bulk({
      audience: { tag: 'gold' },
      increment: { points: 50 },
      addTags: ['bulk-1'],
    });
    // Gold and Active: Alice and Carol (Dave is Voided); Carol's points are no number.
    expect(change).toMatchObject({
      status: 'Done',
      matched: 2,
      updated: 1,
      skipped: 1,
      failureReason: null,
    });
    expect(change.finishedTime).not.toBeNull();

    const alice = await holderOf('alice');
    expect(alice.fieldValues).toEqual({ points: '300' });
    expect(alice.tags).toEqual(['bulk-1', 'gold', 'zurich']);
    const carol = await holderOf('carol');
    expect(carol.fieldValues).toEqual({ points: 'lots' });
    expect(carol.tags).toEqual(['gold']);
    const [{ version }] = await testApp.app
      .get(DataSource)
      .query<{ version: number }[]>('SELECT version FROM holder WHERE id = ?', [holders.alice.id]);
    expect(Number(version)).toBe(Number(versionBefore[0].version) + 1);

    // Alice's device is pushed, Bob's is not; her object is patched with the new value.
    await waitFor(() => apns.pushesFor(tokens.alice).length > 0, "the push to Alice's device");
    await waitFor(
      () => JSON.stringify(google.objects.get(objectIdOf('alice'))).includes('"300"'),
      "Alice's WalletB object to show 300",
    );
    await sleep(300);
    expect(apns.pushesFor(tokens.alice)).toHaveLength(1);
    expect(apns.pushesFor(tokens.bob)).toHaveLength(0);
    expect(objectPatches('alice').length).toBeGreaterThanOrEqual(1);

    // The package the device then fetches shows the value with its changeMessage.
    const opened = openPackage(
      (
        await http()
          .get(`${new URL(alice.downloadUrl).pathname}/pass.pkpass`)
          .buffer(true)
          .parse(binaryBody)
          .expect(200)
      ).body as Buffer,
      readFileSync(join(certDir, 'dev-ca.pem'), 'utf8'),
    );
    expect(opened.signatureVerifies).toBe(true);
    expect((opened.passJson.storeCard as { headerFields: unknown[] }).headerFields).toEqual([
      { key: 'points', label: 'Points', value: '300', changeMessage: 'You now have %@ points' },
    ]);

    // One holder.updated, Alice as the API shows her now.
    const told = updatedEvents(since);
    expect(told.map((holder) => holder.id)).toEqual([holders.alice.id]);
    expect(told[0]).toMatchObject({ fieldValues: { points: '300' }, tags: alice.tags });
  });

  it('works through an audience whose in list has 1,000 values', async () => {
    const others = Array.from({ length: 999 }, (_, index) => `City ${index}`);
    const change = await bulk({
      audience: { attribute: 'city', in: [...others, 'Zurich'] },
      addTags: ['thousand'],
    });
    expect(change).toMatchObject({ status: 'Done', failureReason: null });
    const zurich = await http()
      .post(`/v1/wallet-pass/${pass.id}/audience`)
      .set(owner.auth)
      .send({ audience: { attribute: 'city', eq: 'Zurich' } })
      .expect(200);
    expect(change.matched).toBe((zurich.body as { holders: number }).holders);
    expect(change.matched).toBeGreaterThan(0);
  });

  it("changes a segment's holders (its audience as it is when the change starts)", async () => {
    const segment = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/segments`)
        .set(owner.auth)
        .send({ name: 'Zurich', audience: { attribute: 'city', eq: 'Geneva' } })
        .expect(201)
    ).body as { id: string };
    await http()
      .patch(`/v1/wallet-pass/${pass.id}/segments/${segment.id}`)
      .set(owner.auth)
      .send({ audience: { attribute: 'city', eq: 'Zurich' } })
      .expect(200);
    const since = events.length;
    const change = await bulk({
      segmentId: segment.id,
      set: {
        fieldValues: { tier: 'Gold' },
        attributes: { tier: 'gold', city: null },
        barcodeText: 'VIP',
      },
      addTags: ['vip'],
      removeTags: ['silver', 'zurich'],
    });
    expect(change).toMatchObject({ status: 'Done', matched: 2, updated: 2, skipped: 0 });
    for (const name of ['alice', 'bob']) {
      const holder = await holderOf(name);
      expect(holder.fieldValues.tier).toBe('Gold');
      expect(holder.attributes.tier).toBe('gold');
      expect(holder.attributes.city).toBeUndefined();
      expect(holder.barcodeText).toBe('VIP');
      expect(holder.tags).toContain('vip');
      expect(holder.tags).not.toContain('zurich');
      expect(holder.tags).not.toContain('silver');
    }
    expect(
      updatedEvents(since)
        .map((holder) => holder.externalId)
        .sort(),
    ).toEqual(['alice', 'bob']);
    // The audiences' rows follow: the tags and values just written are what audiences find.
    const size = await http()
      .post(`/v1/wallet-pass/${pass.id}/audience`)
      .set(owner.auth)
      .send({ audience: { all: [{ tag: 'vip' }, { field: 'tier', eq: 'Gold' }] } })
      .expect(200);
    expect((size.body as { holders: number }).holders).toBe(2);
  });

  it('changes chosen holders: a Voided one and one whose value is no number are skipped', async () => {
    const before = await holderOf('dave');
    const since = events.length;
    const change = await bulk({
      holderIds: [holders.alice.id, holders.bob.id, holders.dave.id, holders.alice.id],
      increment: { visits: 1, balance: 0.2 },
    });
    // Alice's visits are 2 and her balance the pass's 0.1; Bob's visits are "x".
    expect(change).toMatchObject({ status: 'Done', matched: 3, updated: 1, skipped: 2 });
    const alice = await holderOf('alice');
    expect(alice.attributes.visits).toBe(3);
    // 0.1 + 0.2 without binary noise.
    expect(alice.fieldValues.balance).toBe('0.3');
    const bob = await holderOf('bob');
    expect(bob.attributes.visits).toBe('x');
    expect(bob.fieldValues.balance).toBeUndefined();
    const dave = await holderOf('dave');
    expect(dave).toEqual(before);
    expect(updatedEvents(since).map((holder) => holder.externalId)).toEqual(['alice']);
  });

  it('counts a holder the change leaves as it was in neither updated nor skipped', async () => {
    const since = events.length;
    const change = await bulk({ audience: { tag: 'gold' }, addTags: ['gold'] });
    expect(change).toMatchObject({ status: 'Done', matched: 2, updated: 0, skipped: 0 });
    expect(updatedEvents(since)).toEqual([]);
  });

  it('refuses every malformed part with a 400 naming it, and writes nothing', async () => {
    const dataSource = testApp.app.get(DataSource);
    const count = async () =>
      Number(
        (
          await dataSource.query<{ n: number | string }[]>(
            'SELECT COUNT(*) AS n FROM holder_bulk_change',
          )
        )[0].n,
      );
    const before = await count();
    const alice = holders.alice.id;
    const cases: [Record<string, unknown>, string[]][] = [
      [{ increment: { points: 1 } }, ['audience']],
      [
        { audience: { tag: 'gold' }, holderIds: [alice], increment: { points: 1 } },
        ['audience', 'holderIds'],
      ],
      [{ segmentId: 'x', holderIds: [alice], addTags: ['a'] }, ['segmentId', 'holderIds']],
      [{ holderIds: [alice] }, ['set']],
      [{ holderIds: [alice], set: {} }, ['set']],
      [{ holderIds: [alice], set: { fieldValues: { nope: 'x' } } }, ['set.fieldValues.nope']],
      [{ holderIds: [alice], set: { fieldValues: { points: 5 } } }, ['set.fieldValues.points']],
      [
        { holderIds: [alice], set: { fieldValues: { points: 'x'.repeat(2001) } } },
        ['set.fieldValues.points'],
      ],
      [{ holderIds: [alice], set: { fieldValues: null } }, ['set.fieldValues']],
      [{ holderIds: [alice], set: { attributes: { '1bad': 1 } } }, ['set.attributes.1bad']],
      [{ holderIds: [alice], set: { attributes: { city: { a: 1 } } } }, ['set.attributes.city']],
      [
        { holderIds: [alice], set: { attributes: { city: 'x'.repeat(256) } } },
        ['set.attributes.city'],
      ],
      [{ holderIds: [alice], set: { barcodeText: 5 } }, ['set.barcodeText']],
      [{ holderIds: [alice], set: { barcodeValue: 'x' } }, ['set.barcodeValue']],
      [{ holderIds: [alice], set: [] }, ['set']],
      [{ holderIds: [alice], addTags: ['bad tag'] }, ['addTags.0']],
      [{ holderIds: [alice], addTags: 'gold' }, ['addTags']],
      [{ holderIds: [alice], removeTags: ['ok', 'x'.repeat(65)] }, ['removeTags.1']],
      [{ holderIds: [alice], addTags: ['a'], removeTags: ['a'] }, ['removeTags.0']],
      [{ holderIds: [alice], increment: { points: '1' } }, ['increment.points']],
      [{ holderIds: [alice], increment: { points: null } }, ['increment.points']],
      [{ holderIds: [alice], increment: { 'bad key': 1 } }, ['increment.bad key']],
      [{ holderIds: [alice], increment: [] }, ['increment']],
      [
        { holderIds: [alice], set: { fieldValues: { points: '1' } }, increment: { points: 1 } },
        ['increment.points'],
      ],
      [
        { holderIds: [alice], set: { attributes: { visits: 1 } }, increment: { visits: 1 } },
        ['increment.visits'],
      ],
      [{ audience: { tag: 'bad tag' }, addTags: ['a'] }, ['audience.tag']],
      [{ audience: { field: 'nope', eq: 1 }, addTags: ['a'] }, ['audience.field']],
      [{ audience: [], addTags: ['a'] }, ['audience']],
      [{ holderIds: [], addTags: ['a'] }, ['holderIds']],
      [{ holderIds: ['not-a-holder', alice], addTags: ['a'] }, ['holderIds.0']],
      [{ holderIds: ['bad id!'], addTags: ['a'] }, ['holderIds']],
      [{ holderIds: [alice], addTags: ['a'], unknown: 1 }, ['unknown']],
    ];
    for (const [body, keys] of cases) {
      const response = await http().post(bulkPath()).set(owner.auth).send(body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      const context = (response.body as { context: Record<string, string> }).context;
      expect({ body, keys: Object.keys(context).sort() }).toEqual({ body, keys: [...keys].sort() });
    }
    // Every problem at once.
    const all = await http()
      .post(bulkPath())
      .set(owner.auth)
      .send({
        audience: { tag: 'bad tag' },
        set: { fieldValues: { nope: 'x' } },
        increment: { points: 'x' },
      })
      .expect(400);
    expect(Object.keys((all.body as { context: object }).context).sort()).toEqual(
      ['audience.tag', 'increment.points', 'set.fieldValues.nope'].sort(),
    );
    // 1,001 ids.
    const many = Array.from({ length: 1001 }, () => alice);
    const tooMany = await http()
      .post(bulkPath())
      .set(owner.auth)
      .send({ holderIds: many, addTags: ['a'] })
      .expect(400);
    expect(Object.keys((tooMany.body as { context: object }).context)).toEqual(['holderIds']);
    expect(await count()).toBe(before);
  });

  it("is a 404 for another workspace's pass or change, another pass's change and an unknown segment", async () => {
    const change = await bulk({ holderIds: [holders.erin.id], increment: { points: 1 } });
    const other = await publishedPass(owner, 'Other card');
    await http()
      .get(`${bulkPath(other.id)}/${change.id}`)
      .set(owner.auth)
      .expect(404);
    await http()
      .get(`${bulkPath()}/019a2b3c-9999-7f60-8a1b-2c3d4e5f6a7b`)
      .set(owner.auth)
      .expect(404);
    await http()
      .post(bulkPath())
      .set(owner.auth)
      .send({ segmentId: '019a2b3c-9999-7f60-8a1b-2c3d4e5f6a7b', addTags: ['a'] })
      .expect(404);

    const workspace = await owner.createWorkspace();
    const elsewhere = { ...owner.auth, 'x-workspace-id': workspace };
    await http().get(`${bulkPath()}/${change.id}`).set(elsewhere).expect(404);
    await http()
      .post(bulkPath())
      .set(elsewhere)
      .send({ holderIds: [holders.erin.id], increment: { points: 1 } })
      .expect(404);
    // Only the change made in the pass's own workspace happened.
    expect((await holderOf('erin')).fieldValues.points).toBe('8');
  });

  it('is for writers only, and a Draft pass has no holders to change', async () => {
    const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
    await http()
      .post(bulkPath())
      .set({ Authorization: `Bearer ${branded.token}` })
      .send({ holderIds: [holders.erin.id], increment: { points: 1 } })
      .expect(403);
    const draft = (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName: 'Draft card', passMetadata: METADATA })
        .expect(201)
    ).body as { id: string };
    await http()
      .post(bulkPath(draft.id))
      .set(owner.auth)
      .send({ audience: { tag: 'gold' }, addTags: ['a'] })
      .expect(409);
  });
});

/**
 * The worker's own steps, ticked by the test (no embedded worker): a pass deleted before the
 * change runs fails it, and the snapshots of finished changes go with retention.
 */
describe(`Bulk changes, worker and retention (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let dataSource: DataSource;
  let worker: HolderBulkChangeWorker;

  beforeAll(async () => {
    testApp = await startTestApp({ WORKER_ENABLED: 'false', BULK_CHANGE_BATCH_SIZE: '2' });
    owner = await OwnerSession.start(testApp.server);
    dataSource = testApp.app.get(DataSource);
    worker = testApp.app.get(HolderBulkChangeWorker);
  });
  afterAll(async () => {
    await testApp?.close();
  });

  const newChange = async (passId: string, body: Record<string, unknown>) =>
    (
      await request(testApp.server)
        .post(`/v1/wallet-pass/${passId}/holders/bulk`)
        .set(owner.auth)
        .send(body)
        .expect(202)
    ).body as BulkChangeBody;
  const read = async (passId: string, id: string) =>
    (
      await request(testApp.server)
        .get(`/v1/wallet-pass/${passId}/holders/bulk/${id}`)
        .set(owner.auth)
        .expect(200)
    ).body as BulkChangeBody;
  const members = async (snapshotId: string) =>
    Number(
      (
        await dataSource.query<{ n: number | string }[]>(
          'SELECT COUNT(*) AS n FROM audience_member WHERE snapshot_id = ?',
          [snapshotId],
        )
      )[0].n,
    );

  it('fails a change whose pass was deleted before it ran, with the reason', async () => {
    const pass = await publishedPass(owner, 'Deleted card');
    await importHolders(testApp.server, owner, pass.id, [{ externalId: 'a' }, { externalId: 'b' }]);
    const change = await newChange(pass.id, { audience: { status: 'Active' }, addTags: ['x'] });
    await request(testApp.server).delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
    expect(await worker.tick()).toBe(1);
    const failed = await read(pass.id, change.id);
    expect(failed).toMatchObject({
      status: 'Failed',
      failureReason: 'The pass was deleted before the bulk change finished',
      updated: 0,
    });
    expect(failed.finishedTime).not.toBeNull();
  });

  it('snapshots chosen holders in batches; a resumed worker goes on after the last one committed', async () => {
    const pass = await publishedPass(owner, 'Chosen card');
    const rows = Array.from({ length: 5 }, (_, i) => ({ externalId: `c${i}` }));
    const ids = Object.values(await importHolders(testApp.server, owner, pass.id, rows)).map(
      (holder) => holder.id,
    );
    const chosen = [ids[4], ids[0], ids[2], ids[3], ids[0]];
    const inOrder = [...new Set(chosen)].sort();
    const change = await newChange(pass.id, { holderIds: chosen, addTags: ['picked'] });

    // The second batch is taken over by another worker: it rolls back, the first stays.
    const audiences = testApp.app.get(AudiencesService);
    const snapshotIds = audiences.snapshotIds.bind(audiences);
    const batches: string[][] = [];
    const spy = jest
      .spyOn(audiences, 'snapshotIds')
      .mockImplementation(async (manager, snapshotId, batchPass, batchIds) => {
        batches.push([...batchIds]);
        await snapshotIds(manager, snapshotId, batchPass, batchIds);
        if (batches.length === 2) {
          await manager.query(
            "UPDATE holder_bulk_change SET leased_by = 'another-worker' WHERE id = ?",
            [snapshotId],
          );
        }
      });
    const { snapshotBatchSize } = testApp.config.worker;
    testApp.config.worker.snapshotBatchSize = 2;
    try {
      expect(await worker.tick()).toBe(1);
      expect(batches).toEqual([inOrder.slice(0, 2), inOrder.slice(2)]);
      expect(await members(change.id)).toBe(2);
      expect(await read(pass.id, change.id)).toMatchObject({
        status: 'Pending',
        matched: null,
        updated: 0,
      });

      // Its lease runs out; the next attempt goes on after the first batch, never before it.
      await dataSource.query(
        'UPDATE holder_bulk_change SET lease_until = NULL, leased_by = NULL WHERE id = ?',
        [change.id],
      );
      batches.length = 0;
      expect(await worker.tick()).toBe(1);
      expect(batches).toEqual([inOrder.slice(2)]);
    } finally {
      spy.mockRestore();
      testApp.config.worker.snapshotBatchSize = snapshotBatchSize;
    }
    expect(await members(change.id)).toBe(inOrder.length);
    expect(await read(pass.id, change.id)).toMatchObject({
      status: 'Done',
      matched: inOrder.length,
      updated: inOrder.length,
      skipped: 0,
    });
  });

  it("deletes finished changes' snapshots after RETENTION_DAYS, in batches, and keeps the rest", async () => {
    const pass = await publishedPass(owner, 'Retention card');
    const rows = Array.from({ length: 5 }, (_, i) => ({ externalId: `r${i}`, tags: ['t'] }));
    await importHolders(testApp.server, owner, pass.id, rows);
    const old = await newChange(pass.id, { audience: { tag: 't' }, addTags: ['u'] });
    const recent = await newChange(pass.id, { audience: { tag: 't' }, addTags: ['v'] });
    const running = await newChange(pass.id, { audience: { tag: 't' }, addTags: ['w'] });
    expect(await worker.tick()).toBe(3);
    expect((await read(pass.id, old.id)).status).toBe('Done');
    expect(await members(old.id)).toBe(5);
    // One finished long ago, one unfinished (a worker holds it) as long ago: only the first goes.
    const longAgo = sqlDialect(dataSource).writeDate(new Date(Date.now() - 40 * DAY_MS));
    await dataSource.query('UPDATE holder_bulk_change SET finished_time = ? WHERE id = ?', [
      longAgo,
      old.id,
    ]);
    await dataSource.query(
      "UPDATE holder_bulk_change SET status = 'Running', finished_time = ? WHERE id = ?",
      [longAgo, running.id],
    );
    testApp.config.retention.batchSize = 2;
    const deleted = await testApp.app.get(RetentionWorker).tick();
    expect(deleted.audience_member).toBe(5);
    expect(await members(old.id)).toBe(0);
    expect(await members(recent.id)).toBe(5);
    expect(await members(running.id)).toBe(5);
    // The change itself and its counts stay.
    expect(await read(pass.id, old.id)).toMatchObject({ status: 'Done', matched: 5, updated: 5 });
  });
});
