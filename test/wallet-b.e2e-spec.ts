import { newId } from '@app/core';
import { Pass } from '@app/passes';
import {
  ClassSyncWorker,
  GOOGLE_SAVE_URL_PREFIX,
  SyncJob,
  WalletBMessage,
  WalletBObject,
  WalletBMessagesService,
} from '@app/wallet-b';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { foreignRootKey } from './support/google-callbacks';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

const ISSUER_ID = '3388000000022223333';

async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A generic pass: its objects carry title, header, logo and colour (kinds: pass-kinds-wallet-b). */
const metadata = {
  passType: 'generic',
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  backgroundColor: '#102030',
  displayTextColor: '#FFFFFF',
  topField: { key: 'points', label: 'Points', value: '100' },
  secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
  backFields: [
    {
      key: 'links',
      label: 'Links',
      value: [{ text: 'Stores', link: 'https://brand.example/stores' }, { text: 'Open daily' }],
    },
  ],
  qrUrl: 'https://brand.example/member/1',
  qrText: 'Member 1',
};

interface PassBody {
  id: string;
  slug: string;
  passName: string;
  status: string;
  googleSaveUrl: string | null;
  googleIssuedCount: number;
  googleActiveCount: number;
  totalIssuedCount: number;
  totalActiveCount: number;
  appleIssuedCount: number;
}

interface SavedObject {
  id: string;
  classId: string;
  [field: string]: unknown;
}

/** The JWT of a save link, verified with the service account's public key. */
function saveLinkJwt(fake: GoogleWalletFake, url: string) {
  expect(url.startsWith(GOOGLE_SAVE_URL_PREFIX)).toBe(true);
  return verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), fake.publicKey);
}

describe('WalletB (Google Wallet) end to end', () => {
  let fake: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];
  let pass: PassBody;
  let classId: string;

  const http = () => request(testApp.server);
  const getPass = async (id = pass.id) =>
    (await http().get(`/v1/wallet-pass/${id}`).set(owner.auth).expect(200)).body as PassBody;
  const passEntity = (id = pass.id) =>
    testApp.app.get(DataSource).getRepository(Pass).findOneByOrFail({ id });
  const callback = (body: unknown) =>
    http()
      .post('/callbacks/wallet-b')
      .send(body as object);
  const signed = (
    eventType: 'save' | 'del',
    objectId: string,
    options: { nonce?: string; classId?: string } = {},
  ) =>
    fake.callbackSigner.build(
      { classId: options.classId ?? classId, objectId, eventType, nonce: options.nonce },
      { recipientId: ISSUER_ID },
    );
  const createPass = async (passName: string, status: 'Draft' | 'Published' = 'Published') =>
    (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName, passMetadata: metadata, status, uploadInfoList: images })
        .expect(201)
    ).body as PassBody;

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...fake.serviceEnv(),
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    pass = await createPass('Google flow');
    classId = `${ISSUER_ID}.${pass.id}`;
  });
  afterAll(async () => {
    await testApp.close();
    await fake.close();
  });

  it("creates a Published pass's class at Google, with fields, links and the callback URL", async () => {
    await waitFor(() => fake.classes.has(classId), 'the class at the fake');
    const created = fake.classes.get(classId)!;
    expect(created.textModulesData).toEqual([
      { id: 'points', header: 'Points', body: '100' },
      { id: 'tier', header: 'Tier', body: 'Gold' },
      { id: 'links', header: 'Links', body: 'Open daily' },
    ]);
    const links = (created.linksModuleData as { uris: { uri: string; description: string }[] })
      .uris;
    expect(links).toEqual([
      {
        uri: expect.stringMatching(/^https:\/\/wallet\.test\/l\/[A-Za-z0-9_-]+$/),
        description: 'Stores',
        id: 'links.0',
      },
    ]);
    expect(created.callbackOptions).toEqual({ url: 'https://wallet.test/callbacks/wallet-b' });
    expect(JSON.stringify(created.classTemplateInfo)).toContain("class.textModulesData['points']");
    // Authenticated with a token from the service account's token_uri.
    expect(fake.tokensIssued).toBeGreaterThanOrEqual(1);
    expect(fake.callsTo('POST', '/walletobjects/v1/genericClass')[0].authorization).toMatch(
      /^Bearer ya29\.fake-/,
    );
  });

  it('gives googleSaveUrl: a save link whose JWT verifies and holds a new object of the class', async () => {
    const body = await getPass();
    const { header, claims } = saveLinkJwt(fake, body.googleSaveUrl!);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: fake.privateKeyId });
    expect(claims).toMatchObject({
      iss: fake.clientEmail,
      aud: 'google',
      typ: 'savetowallet',
      origins: ['https://wallet.test'],
    });
    const objects = (claims.payload as { genericObjects: SavedObject[] }).genericObjects;
    expect(objects).toHaveLength(1);
    expect(objects[0]).toMatchObject({
      classId,
      state: 'ACTIVE',
      cardTitle: { defaultValue: { language: 'en', value: 'Brand Ltd' } },
      header: { defaultValue: { language: 'en', value: 'Google flow' } },
      hexBackgroundColor: '#102030',
      barcode: {
        type: 'QR_CODE',
        value: 'https://brand.example/member/1',
        alternateText: 'Member 1',
      },
      logo: {
        sourceUri: { uri: expect.stringMatching(/^https:\/\/wallet\.test\/files\/.+logo\.png\?/) },
      },
      heroImage: { sourceUri: { uri: expect.stringContaining('strip.png') } },
    });
    expect(objects[0].id).toMatch(new RegExp(`^${classId.replace('.', '\\.')}-[A-Za-z0-9_-]{16}$`));

    // Every link is for a new holder; the list and the holder page carry one too.
    const again = await getPass();
    const otherId = (
      saveLinkJwt(fake, again.googleSaveUrl!).claims.payload as { genericObjects: SavedObject[] }
    ).genericObjects[0].id;
    expect(otherId).not.toBe(objects[0].id);
    const list = await http()
      .get('/v1/wallet-pass')
      .query({ id: pass.id })
      .set(owner.auth)
      .expect(200);
    expect((list.body as { items: PassBody[] }).items[0].googleSaveUrl).toMatch(
      /^https:\/\/pay\.google\.com\/gp\/v\/save\//,
    );
    const page = await http().get(`/p/${pass.slug}`).expect(200);
    expect(page.text).toContain('href="https://pay.google.com/gp/v/save/');
  });

  it('gives no save link and creates no class for a Draft', async () => {
    const draft = await createPass('Draft pass', 'Draft');
    expect(draft.googleSaveUrl).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.classes.has(`${ISSUER_ID}.${draft.id}`)).toBe(false);

    // In a list of drafts and Published passes, each item has its own pass's link or none.
    const list = await http().get('/v1/wallet-pass').set(owner.auth).expect(200);
    const items = (list.body as { items: PassBody[] }).items;
    expect(items.map((item) => item.status)).toEqual(
      expect.arrayContaining(['Draft', 'Published']),
    );
    for (const item of items) {
      if (item.status === 'Published') {
        const { claims } = saveLinkJwt(fake, item.googleSaveUrl!);
        const saved = (claims.payload as { genericObjects: SavedObject[] }).genericObjects[0];
        expect(saved.classId).toBe(`${ISSUER_ID}.${item.id}`);
      } else {
        expect(item.googleSaveUrl).toBeNull();
      }
    }
  });

  it('counts saves and deletes from verified callbacks, each nonce once', async () => {
    const [a, b] = [`${classId}-objectAAAAAAAAAAA`, `${classId}-objectBBBBBBBBBBB`];
    await callback(signed('save', a, { nonce: 'n-save-a' })).expect(200);
    await callback(signed('save', b, { nonce: 'n-save-b' })).expect(200);
    await callback(signed('save', a, { nonce: 'n-save-a' })).expect(200);
    expect(await getPass()).toMatchObject({
      googleIssuedCount: 2,
      googleActiveCount: 2,
      totalIssuedCount: 2,
      totalActiveCount: 2,
      appleIssuedCount: 0,
    });

    await callback(signed('del', a, { nonce: 'n-del-a' })).expect(200);
    await callback(signed('del', a, { nonce: 'n-del-a' })).expect(200);
    await callback(signed('del', a, { nonce: 'n-del-a-again' })).expect(200);
    expect(await getPass()).toMatchObject({
      googleIssuedCount: 2,
      googleActiveCount: 1,
      totalActiveCount: 1,
    });

    // Saved again: active again, but issued counts each object once.
    await callback(signed('save', a, { nonce: 'n-save-a-2' })).expect(200);
    // A delete of an object never saved, and classes that are not ours, change nothing.
    await callback(signed('del', `${classId}-neverSavedXXXXXX`)).expect(200);
    await callback(
      signed('save', `${ISSUER_ID}.unknown-x`, { classId: `${ISSUER_ID}.unknown` }),
    ).expect(200);
    await callback(signed('save', '1.other-x', { classId: '1.other' })).expect(200);
    expect(await getPass()).toMatchObject({
      googleIssuedCount: 2,
      googleActiveCount: 2,
      totalIssuedCount: 2,
      totalActiveCount: 2,
    });
  });

  it('keeps the counters right under concurrent callbacks', async () => {
    const target = await createPass('Concurrent saves');
    const targetClass = `${ISSUER_ID}.${target.id}`;
    const saves = Array.from({ length: 12 }, (_, n) =>
      signed('save', `${targetClass}-c${n % 8}`, { classId: targetClass, nonce: `c-${n % 10}` }),
    );
    const answers = await Promise.all(saves.map((body) => callback(body)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    // 10 distinct nonces over 8 objects: objects c0..c7 saved, c0 and c1 repeated.
    expect(await getPass(target.id)).toMatchObject({ googleIssuedCount: 8, googleActiveCount: 8 });
    const deletes = Array.from({ length: 8 }, (_, n) =>
      signed('del', `${targetClass}-c${n % 4}`, { classId: targetClass }),
    );
    await Promise.all(deletes.map((body) => callback(body)));
    expect(await getPass(target.id)).toMatchObject({ googleIssuedCount: 8, googleActiveCount: 4 });
  });

  it('refuses callbacks that do not verify (400) and changes nothing', async () => {
    const before = await getPass();
    const object = `${classId}-forgedXXXXXXXXXX`;
    const forged = [
      fake.callbackSigner.build(
        { classId, objectId: object, eventType: 'save' },
        { recipientId: ISSUER_ID, tamperMessage: true },
      ),
      fake.callbackSigner.build(
        { classId, objectId: object, eventType: 'save' },
        { recipientId: ISSUER_ID, rootPrivateKey: foreignRootKey() },
      ),
      fake.callbackSigner.build(
        { classId, objectId: object, eventType: 'save' },
        { recipientId: '3388000000099999999' },
      ),
      fake.callbackSigner.build(
        { classId, objectId: object, eventType: 'save' },
        { recipientId: ISSUER_ID, intermediateExpiration: Date.now() - 1000 },
      ),
      fake.callbackSigner.build(
        { classId, objectId: object, eventType: 'save', expTimeMillis: Date.now() - 1000 },
        { recipientId: ISSUER_ID },
      ),
      { classId, objectId: object, eventType: 'save', nonce: 'plain' },
    ];
    for (const body of forged) {
      const response = await callback(body).expect(400);
      expect(response.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        errorMessage: 'The WalletB callback does not verify',
      });
    }
    expect(await getPass()).toMatchObject({
      googleIssuedCount: before.googleIssuedCount,
      googleActiveCount: before.googleActiveCount,
    });
    const objects = await testApp.app
      .get(DataSource)
      .getRepository(WalletBObject)
      .countBy({ objectId: object });
    expect(objects).toBe(0);
  });

  it('sends messages with TEXT_AND_NOTIFY, and beyond Google’s limit with TEXT', async () => {
    const walletB = testApp.app.get(WalletBMessagesService);
    const results = [];
    for (let n = 1; n <= 4; n++) {
      results.push(
        await walletB.sendMessage(await passEntity(), {
          id: `msg-${n}`,
          header: 'News',
          body: `Message ${n}`,
        }),
      );
    }
    const active = (await getPass()).googleActiveCount;
    expect(results).toEqual([
      { status: 'sent', recipients: active, notified: true },
      { status: 'sent', recipients: active, notified: true },
      { status: 'sent', recipients: active, notified: true },
      { status: 'sent', recipients: active, notified: false },
    ]);
    const messages = fake.classes.get(classId)!.messages!;
    expect(messages.map((message) => [message.id, message.messageType])).toEqual([
      ['msg-1', 'TEXT_AND_NOTIFY'],
      ['msg-2', 'TEXT_AND_NOTIFY'],
      ['msg-3', 'TEXT_AND_NOTIFY'],
      ['msg-4', 'TEXT'],
    ]);
    expect(messages[0]).toEqual({
      id: 'msg-1',
      header: 'News',
      body: 'Message 1',
      messageType: 'TEXT_AND_NOTIFY',
    });
  });

  it('falls back to TEXT when Google says the notification quota is used up', async () => {
    const other = await createPass('Quota pass');
    const otherClass = `${ISSUER_ID}.${other.id}`;
    await waitFor(() => fake.classes.has(otherClass), 'the class of the quota pass');
    // Three notifying messages that did not come through this service.
    for (let n = 1; n <= 3; n++) {
      await request(fake.url)
        .post(`/walletobjects/v1/genericClass/${otherClass}/addMessage`)
        .set('Authorization', fake.calls.at(-1)!.authorization!)
        .send({ message: { id: `x${n}`, header: 'h', body: 'b', messageType: 'TEXT_AND_NOTIFY' } })
        .expect(200);
    }
    const result = await testApp.app
      .get(WalletBMessagesService)
      .sendMessage(await passEntity(other.id), { id: 'late', header: 'News', body: 'Late' });
    expect(result).toEqual({ status: 'sent', recipients: 0, notified: false });
    expect(fake.classes.get(otherClass)!.messages!.at(-1)).toMatchObject({
      id: 'late',
      messageType: 'TEXT',
    });
  });

  it('retries a 429 and then succeeds', async () => {
    fake.reset();
    fake.failNext(1, 429, `/walletobjects/v1/genericClass/${classId}/addMessage`);
    const result = await testApp.app
      .get(WalletBMessagesService)
      .sendMessage(await passEntity(), { id: 'after-429', header: 'News', body: 'Retried' });
    expect(result).toMatchObject({ status: 'sent' });
    expect(
      fake
        .callsTo('POST', `/walletobjects/v1/genericClass/${classId}/addMessage`)
        .map((call) => call.status),
    ).toEqual([429, 200]);
  });

  it('reports a message Google never accepted as failed, not sent', async () => {
    fake.reset();
    fake.failNext(10, 500, `/walletobjects/v1/genericClass/${classId}/addMessage`);
    const result = await testApp.app
      .get(WalletBMessagesService)
      .sendMessage(await passEntity(), { id: 'lost', header: 'News', body: 'Lost' });
    expect(result).toEqual({
      status: 'failed',
      reason: expect.stringContaining('failed after 5 tries'),
    });
    fake.reset();
  });

  it('sends a message id once, also when its first send did not finish', async () => {
    const walletB = testApp.app.get(WalletBMessagesService);
    const messages = testApp.app.get(DataSource).getRepository(WalletBMessage);
    const atGoogle = (id: string) =>
      fake.classes.get(classId)!.messages!.filter((message) => message.id === id).length;
    const first = await walletB.sendMessage(await passEntity(), {
      id: 'once',
      header: 'h',
      body: 'b',
    });
    expect(first).toMatchObject({ status: 'sent' });
    expect(
      await walletB.sendMessage(await passEntity(), { id: 'once', header: 'h', body: 'b' }),
    ).toEqual(first);
    expect(atGoogle('once')).toBe(1);

    // A crash after Google accepted it: found at Google, not sent again.
    await messages.update({ passId: pass.id, messageId: 'once' }, { state: 'pending' });
    expect(
      await walletB.sendMessage(await passEntity(), { id: 'once', header: 'h', body: 'b' }),
    ).toEqual(first);
    expect(atGoogle('once')).toBe(1);
    expect(await messages.findOneBy({ passId: pass.id, messageId: 'once' })).toMatchObject({
      state: 'sent',
    });

    // A crash before Google got it: sent now.
    await messages.insert({
      id: newId(),
      workspaceId: owner.defaultWorkspaceId,
      passId: pass.id,
      messageId: 'crashed-before',
      messageType: 'TEXT',
      state: 'pending',
      recipients: 1,
      createdTime: new Date(),
      updatedTime: new Date(),
    });
    expect(
      await walletB.sendMessage(await passEntity(), {
        id: 'crashed-before',
        header: 'h',
        body: 'b',
      }),
    ).toEqual({ status: 'sent', recipients: 1, notified: false });
    expect(atGoogle('crashed-before')).toBe(1);
  });

  it("updates the class on a pass change and holders' objects when what they show changed", async () => {
    // A holder saves through the link: Google creates the object and calls back.
    const link = (await getPass()).googleSaveUrl!;
    const object = (saveLinkJwt(fake, link).claims.payload as { genericObjects: SavedObject[] })
      .genericObjects[0];
    fake.saveObject(object);
    await callback(signed('save', object.id)).expect(200);

    fake.reset();
    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({
        passName: 'Google flow',
        passMetadata: { ...metadata, topField: { ...metadata.topField, value: '250' } },
      })
      .expect(200);
    await waitFor(
      () => JSON.stringify(fake.classes.get(classId)?.textModulesData).includes('250'),
      'the class to show the new value',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Only a class field changed: objects are left alone.
    expect(fake.callsTo('PATCH', '/walletobjects/v1/genericObject')).toHaveLength(0);
    expect(fake.classes.get(classId)!.messages).toHaveLength(7); // PATCH keeps the messages

    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({ passName: 'Google flow renamed', passMetadata: metadata })
      .expect(200);
    await waitFor(
      () =>
        (fake.objects.get(object.id)?.header as { defaultValue: { value: string } }).defaultValue
          .value === 'Google flow renamed',
      "the holder's object to show the new name",
    );
    pass.passName = 'Google flow renamed';
  });

  it('delivers a notification to WalletB holders through the notifications API', async () => {
    const created = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: pass.id,
        notificationName: 'Weekend',
        notificationMessage: 'Double points',
      })
      .expect(201);
    const id = (created.body as { id: string }).id;
    type NotificationBody = { status: string; googleNotificationSentCount: number };
    let done: NotificationBody | undefined;
    await waitFor(async () => {
      done = (await http().get(`/v1/wallet-pass/notifications/${id}`).set(owner.auth).expect(200))
        .body as NotificationBody;
      return [
        'Published',
        'Failed',
        'AppleFailedGoogleSuccess',
        'AppleSuccessGoogleFailed',
      ].includes(done.status);
    }, 'the notification to be delivered');
    // No APNs credentials in this app: WalletA fails, WalletB got the message.
    expect(done).toMatchObject({
      status: 'AppleFailedGoogleSuccess',
      googleNotificationSentCount: (await getPass()).googleActiveCount,
    });
    expect(fake.classes.get(classId)!.messages!.at(-1)).toMatchObject({
      id,
      body: 'Double points',
    });
  });

  it('retries a class sync that Google failed, later', async () => {
    const dataSource = testApp.app.get(DataSource);
    fake.reset();
    fake.failNext(5, 503, '/walletobjects/v1/genericClass');
    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({
        passName: pass.passName,
        passMetadata: { ...metadata, topField: { ...metadata.topField, value: '300' } },
      })
      .expect(200);
    const failedJob = async () =>
      dataSource.getRepository(SyncJob).findOneBy({ passId: pass.id, state: 'pending' });
    await waitFor(
      async () => (await failedJob())?.lastError != null,
      'the failed sync to be queued again',
    );
    const job = (await failedJob())!;
    expect(job.attempts).toBe(1);
    expect(job.lastError).toMatch(/503/);
    expect(job.nextAttemptTime.getTime()).toBeGreaterThan(Date.now());
    expect(JSON.stringify(fake.classes.get(classId)?.textModulesData)).not.toContain('300');

    await dataSource
      .getRepository(SyncJob)
      .update({ id: job.id }, { nextAttemptTime: new Date(Date.now() - 1000) });
    testApp.app.get(ClassSyncWorker).kick();
    await waitFor(
      () => JSON.stringify(fake.classes.get(classId)?.textModulesData).includes('300'),
      'the retried sync',
    );
    await waitFor(
      async () =>
        (await dataSource.getRepository(SyncJob).findOneBy({ id: job.id }))?.state === 'done',
      'the job to be done',
    );
  });

  it("expires holders' objects when the pass is deleted", async () => {
    const object = [...fake.objects.values()].find((item) => item.classId === classId)!;
    await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
    await waitFor(() => fake.objects.get(object.id)?.state === 'EXPIRED', 'the object to expire');
  });
});

describe('WalletB without a service account', () => {
  let fake: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      WALLET_B_ISSUER_ID: ISSUER_ID,
      WALLET_B_API_URL: fake.url,
      WALLET_B_CALLBACK_KEYS_URL: fake.keysUrl,
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    await testApp.close();
    await fake.close();
  });

  it('gives no save link, fails messages with the reason, and calls nobody', async () => {
    const images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'No Google',
        passMetadata: metadata,
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201);
    const body = created.body as PassBody;
    expect(body.googleSaveUrl).toBeNull();
    const page = await request(testApp.server).get(`/p/${body.slug}`).expect(200);
    expect(page.text).toContain('walletb disabled');

    const entity = await testApp.app
      .get(DataSource)
      .getRepository(Pass)
      .findOneByOrFail({ id: body.id });
    expect(
      await testApp.app
        .get(WalletBMessagesService)
        .sendMessage(entity, { id: 'm', header: 'h', body: 'b' }),
    ).toEqual({
      status: 'failed',
      reason: 'WalletB is not configured: set WALLET_B_SERVICE_ACCOUNT',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.calls).toHaveLength(0);
    expect(fake.tokensIssued).toBe(0);
    // The class sync waits for WalletB to be configured rather than being lost.
    const jobs = await testApp.app
      .get(DataSource)
      .getRepository(SyncJob)
      .findBy({ passId: body.id });
    expect(jobs.map((job) => job.state)).toEqual(['pending']);
  });
});
