import { GOOGLE_SAVE_URL_PREFIX } from '@app/wallet-b';
import request from 'supertest';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { notifyAndWait, waitFor } from './support/walleta-env';

const ISSUER_ID = '3388000000033334444';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const metadata = {
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  topField: { key: 'points', label: 'Points', value: '0' },
  secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Basic' }],
  qrUrl: 'https://brand.example/member',
  qrText: 'Member',
};

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  googleSaveUrl: string | null;
  googleInstalledCount: number;
}

interface SavedObject {
  id: string;
  classId: string;
  state: string;
  barcode?: { value: string; alternateText?: string };
  textModulesData?: { id: string; header?: string; body: string }[];
  heroImage: { contentDescription: { defaultValue: { value: string } } };
}

describe('Personal passes on WalletB', () => {
  let fake: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let pass: { id: string; slug: string };
  let classId: string;
  let alice: HolderBody;
  let bob: HolderBody;

  const http = () => request(testApp.server);
  const holderPath = (holder: HolderBody) => `/v1/wallet-pass/${pass.id}/holders/${holder.id}`;
  const getHolder = async (holder: HolderBody) =>
    (await http().get(holderPath(holder)).set(owner.auth).expect(200)).body as HolderBody;
  const passCounters = async () =>
    (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200)).body as Record<
      string,
      number
    >;
  /** The object a holder's googleSaveUrl saves: its redirect to Google's signed save URL. */
  const objectOf = async (holder: HolderBody): Promise<SavedObject> => {
    expect(holder.googleSaveUrl).toBe(`${holder.downloadUrl}/wallet-b`);
    const redirect = await http()
      .get(new URL(holder.googleSaveUrl!).pathname)
      .expect(302)
      .expect('cache-control', 'no-store');
    const url = redirect.headers.location;
    expect(url.startsWith(GOOGLE_SAVE_URL_PREFIX)).toBe(true);
    const jwt = verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), fake.publicKey);
    // A store card (the pass names no kind) is a loyalty class on WalletB.
    return (jwt.claims.payload as { loyaltyObjects: SavedObject[] }).loyaltyObjects[0];
  };
  const callback = (eventType: 'save' | 'del', objectId: string) =>
    http()
      .post('/callbacks/wallet-b')
      .send(
        fake.callbackSigner.build({ classId, objectId, eventType }, { recipientId: ISSUER_ID }),
      );
  const objectPatches = (objectId: string) =>
    fake.callsTo('PATCH', `/walletobjects/v1/loyaltyObject/${objectId}`);
  const stored = (objectId: string) => fake.objects.get(objectId) as unknown as SavedObject;

  const notify = (fields: Record<string, unknown>) => notifyAndWait(owner, pass.id, fields);

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...fake.serviceEnv(),
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    pass = (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName: 'Personal', passMetadata: metadata, status: 'Published', uploadInfoList })
        .expect(201)
    ).body;
    classId = `${ISSUER_ID}.${pass.id}`;
    await waitFor(() => fake.classes.has(classId), 'the class');
    const holders = `/v1/wallet-pass/${pass.id}/holders`;
    alice = (
      await http()
        .post(holders)
        .set(owner.auth)
        .send({
          externalId: 'alice',
          fieldValues: { points: '250' },
          barcodeValue: 'member-alice',
          barcodeText: 'Alice',
        })
        .expect(201)
    ).body;
    bob = (await http().post(holders).set(owner.auth).send({ externalId: 'bob' }).expect(201)).body;
  });
  afterAll(async () => {
    await testApp.close();
    await fake.close();
  });

  it('gives each holder a save link of its own object, with its barcode and values', async () => {
    const object = await objectOf(alice);
    expect(object).toMatchObject({
      id: `${ISSUER_ID}.${alice.serialNumber}`,
      classId,
      state: 'ACTIVE',
      barcode: { type: 'QR_CODE', value: 'member-alice', alternateText: 'Alice' },
      textModulesData: [{ id: 'points', header: 'Points', body: '250' }],
    });
    // The same object at every read: saving twice is one object.
    expect((await objectOf(await getHolder(alice))).id).toBe(object.id);
    // The link itself is the same at every read (and in the holder's events).
    expect((await getHolder(alice)).googleSaveUrl).toBe(alice.googleSaveUrl);

    const bobs = await objectOf(bob);
    expect(bobs.id).toBe(`${ISSUER_ID}.${bob.serialNumber}`);
    expect(bobs.barcode).toEqual({
      type: 'QR_CODE',
      value: 'https://brand.example/member',
      alternateText: 'Member',
    });
    expect(bobs.textModulesData).toEqual([]);

    // The class's card shows a holder's own value first, the class's otherwise.
    expect(JSON.stringify(fake.classes.get(classId)!.classTemplateInfo)).toContain(
      "object.textModulesData['points']",
    );

    // The holder page's WalletB button is the holder's own link.
    const page = await http().get(new URL(alice.downloadUrl).pathname).expect(200);
    expect(page.text).toContain(`${GOOGLE_SAVE_URL_PREFIX}`);
    expect(page.text).not.toContain('walletb disabled');
  });

  it("counts a holder's object's save and delete on the holder and the pass", async () => {
    const before = await passCounters();
    for (const holder of [alice, bob]) {
      fake.saveObject((await objectOf(holder)) as unknown as Record<string, unknown>);
      await callback('save', `${ISSUER_ID}.${holder.serialNumber}`).expect(200);
    }
    expect((await getHolder(alice)).googleInstalledCount).toBe(1);
    expect((await getHolder(bob)).googleInstalledCount).toBe(1);
    let after = await passCounters();
    expect(after.googleIssuedCount).toBe(before.googleIssuedCount + 2);
    expect(after.googleActiveCount).toBe(before.googleActiveCount + 2);
    expect(after.totalActiveCount).toBe(before.totalActiveCount + 2);

    await callback('del', `${ISSUER_ID}.${bob.serialNumber}`).expect(200);
    expect((await getHolder(bob)).googleInstalledCount).toBe(0);
    after = await passCounters();
    expect(after.googleActiveCount).toBe(before.googleActiveCount + 1);
    expect(after.googleIssuedCount).toBe(before.googleIssuedCount + 2);

    // Saved again: active again, not issued again.
    await callback('save', `${ISSUER_ID}.${bob.serialNumber}`).expect(200);
    expect((await getHolder(bob)).googleInstalledCount).toBe(1);
    after = await passCounters();
    expect(after.googleActiveCount).toBe(before.googleActiveCount + 2);
    expect(after.googleIssuedCount).toBe(before.googleIssuedCount + 2);
    expect((await getHolder(alice)).googleInstalledCount).toBe(1);
  });

  it("patches only the changed holder's object", async () => {
    const aliceObject = `${ISSUER_ID}.${alice.serialNumber}`;
    const bobObject = `${ISSUER_ID}.${bob.serialNumber}`;
    fake.reset();
    await http()
      .patch(holderPath(alice))
      .set(owner.auth)
      .send({ fieldValues: { points: '300', tier: 'Gold' } })
      .expect(200);
    await waitFor(() => objectPatches(aliceObject).length > 0, "Alice's object patch");
    await sleep(400);
    expect(objectPatches(aliceObject)).toHaveLength(1);
    expect(objectPatches(bobObject)).toHaveLength(0);
    expect(fake.callsTo('PATCH', '/walletobjects/v1/loyaltyClass')).toHaveLength(0);
    expect(stored(aliceObject)).toMatchObject({
      state: 'ACTIVE',
      barcode: { value: 'member-alice', alternateText: 'Alice' },
      textModulesData: [
        { id: 'points', header: 'Points', body: '300' },
        { id: 'tier', header: 'Tier', body: 'Gold' },
      ],
    });
  });

  it("keeps holders' own values when a pass change patches every object", async () => {
    const aliceObject = `${ISSUER_ID}.${alice.serialNumber}`;
    const bobObject = `${ISSUER_ID}.${bob.serialNumber}`;
    fake.reset();
    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({ passName: 'Personal renamed', passMetadata: { ...metadata, qrText: 'Card' } })
      .expect(200);
    const shownName = (objectId: string) =>
      stored(objectId).heroImage.contentDescription.defaultValue.value;
    await waitFor(
      () =>
        shownName(aliceObject) === 'Personal renamed' &&
        shownName(bobObject) === 'Personal renamed',
      'both objects to show the new name',
    );
    expect(stored(aliceObject)).toMatchObject({
      barcode: { value: 'member-alice', alternateText: 'Alice' },
      textModulesData: [
        { id: 'points', body: '300' },
        { id: 'tier', body: 'Gold' },
      ],
    });
    // Bob has no barcode text of his own: the pass's new one.
    expect(stored(bobObject)).toMatchObject({
      barcode: { value: 'https://brand.example/member', alternateText: 'Card' },
      textModulesData: [],
    });
  });

  it('puts a notification to chosen holders on their objects only, not on the class', async () => {
    const aliceObject = `${ISSUER_ID}.${alice.serialNumber}`;
    const bobObject = `${ISSUER_ID}.${bob.serialNumber}`;
    const messagesOf = (resource: unknown) =>
      ((resource as { messages?: { id: string; body: string }[] }).messages ?? []).map(
        (message) => ({ id: message.id, body: message.body }),
      );
    const targeted = await notify({ holderIds: [alice.id], notificationMessage: 'Just for you' });
    expect(targeted).toMatchObject({ holderIds: [alice.id], googleNotificationSentCount: 1 });
    expect(messagesOf(fake.objects.get(aliceObject))).toContainEqual({
      id: targeted.id,
      body: 'Just for you',
    });
    expect(messagesOf(fake.objects.get(bobObject))).toEqual([]);
    expect(messagesOf(fake.classes.get(classId))).not.toContainEqual(
      expect.objectContaining({ id: targeted.id }),
    );

    // Without holderIds the message goes on the class: every object shows it.
    const everyone = await notify({ notificationMessage: 'For everyone' });
    expect(everyone.holderIds).toBeNull();
    expect(messagesOf(fake.classes.get(classId))).toContainEqual({
      id: everyone.id,
      body: 'For everyone',
    });
    expect(messagesOf(fake.objects.get(bobObject))).toEqual([]);
  });

  it("expires a voided holder's object only; its link is gone", async () => {
    const aliceObject = `${ISSUER_ID}.${alice.serialNumber}`;
    const bobObject = `${ISSUER_ID}.${bob.serialNumber}`;
    fake.reset();
    await http().delete(holderPath(bob)).set(owner.auth).expect(204);
    await waitFor(() => stored(bobObject).state === 'EXPIRED', "Bob's object to expire");
    await sleep(300);
    expect(objectPatches(aliceObject)).toHaveLength(0);
    expect(stored(aliceObject).state).toBe('ACTIVE');
    expect((await getHolder(bob)).googleSaveUrl).toBeNull();
    // A link kept from before the void saves nothing any more.
    await http()
      .get(`${new URL(bob.downloadUrl).pathname}/wallet-b`)
      .expect(404);
  });

  it('needs nothing for a holder whose object Google does not have', async () => {
    const carol = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'carol' })
        .expect(201)
    ).body as HolderBody;
    const carolObject = `${ISSUER_ID}.${carol.serialNumber}`;
    fake.reset();
    await http()
      .patch(holderPath(carol))
      .set(owner.auth)
      .send({ fieldValues: { points: '5' } })
      .expect(200);
    await waitFor(() => objectPatches(carolObject).length > 0, "Carol's object patch");
    await sleep(400);
    // Google answered 404 once; nothing was retried.
    expect(objectPatches(carolObject)).toHaveLength(1);
    expect(fake.objects.has(carolObject)).toBe(false);
  });

  it('patches the objects of the holders an import changed', async () => {
    const aliceObject = `${ISSUER_ID}.${alice.serialNumber}`;
    fake.reset();
    await http()
      .post(`/v1/wallet-pass/${pass.id}/holders/import`)
      .set(owner.auth)
      .send([
        {
          externalId: 'alice',
          fieldValues: { points: '400' },
          barcodeValue: 'member-alice',
          barcodeText: 'Alice',
        },
      ])
      .expect(200);
    await waitFor(
      () => JSON.stringify(stored(aliceObject).textModulesData).includes('400'),
      "Alice's object to show the imported value",
    );
    // A row replaces the holder's values: the tier she no longer has is cleared.
    expect(stored(aliceObject).textModulesData).toEqual([
      { id: 'points', header: 'Points', body: '400' },
    ]);
    expect(fake.callsTo('PATCH', '/walletobjects/v1/loyaltyClass')).toHaveLength(0);
  });
});
