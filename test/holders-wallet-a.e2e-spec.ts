import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApnsFake } from './fakes/apns-fake';
import { makePng } from './support/png';
import { binaryBody, openPackage, type OpenedPackage } from './support/pkpass';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { notifyAndWait, waitFor } from './support/walleta-env';
import { createApnsSigningKey } from './support/test-certificates';

const PASS_TYPE_ID = 'pass.example.holders';
const TEAM_ID = 'TEAME2E002';
const KEY_ID = 'KEYE2E0002';

/** A device token as APNs hands them out: 32 bytes in hex. */
const deviceToken = (n: number) => n.toString(16).padStart(64, 'b');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  appleInstalledCount: number;
}

type StoreCard = Record<string, { key: string; value: string; changeMessage?: string }[]>;

describe('Personal passes on WalletA', () => {
  let apns: ApnsFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let certDir: string;
  let pass: { id: string; slug: string; passName: string };
  let passToken: string;
  let alice: HolderBody;
  let bob: HolderBody;
  const tokens: Record<string, string> = {};
  const metadata = {
    description: 'Loyalty card',
    organizationName: 'Brand Ltd',
    topField: {
      key: 'points',
      label: 'Points',
      value: '0',
      changeMessage: 'You now have %@ points',
    },
    secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Basic' }],
    qrUrl: 'https://brand.example/member',
    qrText: 'Member',
  };
  // Devices: the shared pass's, two of Alice's copy, one of Bob's.
  const devices = {
    shared: { library: 'dev-shared', token: deviceToken(1) },
    alice1: { library: 'dev-alice-1', token: deviceToken(2) },
    alice2: { library: 'dev-alice-2', token: deviceToken(3) },
    bob: { library: 'dev-bob', token: deviceToken(4) },
  };

  const http = () => request(testApp.server);
  const passKit = (path: string) => `/passkit/v1${path}`;
  const holderPath = (holder: HolderBody) => `/v1/wallet-pass/${pass.id}/holders/${holder.id}`;
  const path = (url: string) => new URL(url).pathname;
  const caPem = () => readFileSync(join(certDir, 'dev-ca.pem'), 'utf8');
  const download = async (url: string): Promise<OpenedPackage> => {
    const response = await http().get(url).buffer(true).parse(binaryBody).expect(200);
    return openPackage(response.body as Buffer, caPem());
  };
  const latest = (serial: string, token: string) =>
    http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${serial}`))
      .set('Authorization', `ApplePass ${token}`)
      .buffer(true)
      .parse(binaryBody);
  const register = (library: string, serial: string, token: string, pushToken: string) =>
    http()
      .post(passKit(`/devices/${library}/registrations/${PASS_TYPE_ID}/${serial}`))
      .set('Authorization', `ApplePass ${token}`)
      .send({ pushToken });
  const passCounters = async () =>
    (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200)).body as Record<
      string,
      number
    >;
  const holder = async (body: HolderBody) =>
    (await http().get(holderPath(body)).set(owner.auth).expect(200)).body as HolderBody;
  const pushed = (device: keyof typeof devices) => apns.pushesFor(devices[device].token).length;

  const notify = (fields: Record<string, unknown>) => notifyAndWait(owner, pass.id, fields);
  /** The notification field on the back of the package a device fetches now. */
  const shownMessage = async (serial: string, token: string) => {
    const response = await latest(serial, token).expect(200);
    const card = openPackage(response.body as Buffer, caPem()).passJson.storeCard as StoreCard;
    return card.backFields?.find((field) => field.key === 'notification');
  };

  beforeAll(async () => {
    const key = createApnsSigningKey();
    apns = await ApnsFake.start({
      topic: PASS_TYPE_ID,
      tokenAuth: { publicKeyPem: key.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    certDir = mkdtempSync(join(tmpdir(), 'wps-holders-wallet-a-'));
    const keyPath = join(certDir, 'AuthKey.p8');
    writeFileSync(keyPath, key.privateKeyPem);
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      WALLET_A_PASS_TYPE_ID: PASS_TYPE_ID,
      WALLET_A_TEAM_ID: TEAM_ID,
      WALLET_A_DEV_CERT_DIR: certDir,
      WALLET_A_APNS_URL: apns.url,
      WALLET_A_APNS_KEY: keyPath,
      WALLET_A_APNS_KEY_ID: KEY_ID,
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    const images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    pass = (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({
          passName: 'Personal cards',
          passMetadata: metadata,
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(201)
    ).body;
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
    await apns.close();
  });

  it("opens a holder's package with its own serial, token, barcode and values, signed", async () => {
    const shared = await download(`/p/${pass.slug}/pass.pkpass`);
    passToken = shared.passJson.authenticationToken as string;

    const opened = await download(`${path(alice.downloadUrl)}/pass.pkpass`);
    expect(opened.signatureVerifies).toBe(true);
    const json = opened.passJson;
    tokens.alice = json.authenticationToken as string;
    expect(tokens.alice.length).toBeGreaterThanOrEqual(16);
    expect(tokens.alice).not.toBe(passToken);
    expect(json).toMatchObject({
      serialNumber: alice.serialNumber,
      passTypeIdentifier: PASS_TYPE_ID,
      barcodes: [{ format: 'PKBarcodeFormatQR', message: 'member-alice', altText: 'Alice' }],
    });
    expect(json.voided).toBeUndefined();
    const card = json.storeCard as StoreCard;
    // The holder's value is the field's value, so its changeMessage shows on a change.
    expect(card.headerFields).toEqual([
      { key: 'points', label: 'Points', value: '250', changeMessage: 'You now have %@ points' },
    ]);
    expect(card.secondaryFields).toEqual([{ key: 'tier', label: 'Tier', value: 'Basic' }]);

    const bobs = await download(`${path(bob.downloadUrl)}/pass.pkpass`);
    tokens.bob = bobs.passJson.authenticationToken as string;
    expect(tokens.bob).not.toBe(tokens.alice);
    expect(bobs.passJson).toMatchObject({
      serialNumber: bob.serialNumber,
      barcodes: [{ message: 'https://brand.example/member', altText: 'Member' }],
    });
    expect((bobs.passJson.storeCard as StoreCard).headerFields[0].value).toBe('0');

    // The tokens are not stored in clear.
    const rows = await testApp.app
      .get(DataSource)
      .query('SELECT wallet_a_token_hash, wallet_a_token FROM holder WHERE pass_id = ?', [pass.id]);
    expect(JSON.stringify(rows)).not.toContain(tokens.alice);
    expect(JSON.stringify(rows)).not.toContain(tokens.bob);
  });

  it("serves the holder's page; an unknown token is a 404", async () => {
    const page = await http().get(path(alice.downloadUrl)).expect(200);
    expect(page.text).toContain('Add to WalletA');
    expect(page.text).toContain(`${alice.downloadUrl}/pass.pkpass`);
    expect(page.headers['content-security-policy']).toMatch(/style-src 'sha256-[^']+'/);
    await http()
      .get(`/p/${pass.slug}/h/${'x'.repeat(32)}`)
      .expect(404);
    await http()
      .get(`/p/${pass.slug}/h/${'x'.repeat(32)}/pass.pkpass`)
      .expect(404);
    await http().get(`/p/${pass.slug}/h/bad%20token`).expect(400);
  });

  it("serves the holder's package by serial with the holder's token only", async () => {
    const response = await latest(alice.serialNumber, tokens.alice).expect(200);
    const opened = openPackage(response.body as Buffer, caPem());
    expect(opened.passJson.serialNumber).toBe(alice.serialNumber);
    expect(response.headers['last-modified']).toBeDefined();
    await latest(alice.serialNumber, passToken).expect(401);
    await latest(alice.serialNumber, tokens.bob).expect(401);
    await latest(pass.id, tokens.alice).expect(401);
    // The shared pass keeps its own serial and token.
    const shared = await latest(pass.id, passToken).expect(200);
    expect(openPackage(shared.body as Buffer, caPem()).passJson.serialNumber).toBe(pass.id);
  });

  it("keeps a holder's page and package out of every cache; Wallet's download revalidates", async () => {
    // Alice's name and barcode: for her browser only, and not kept even there.
    const page = await http().get(path(alice.downloadUrl)).expect(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    const own = await http()
      .get(`${path(alice.downloadUrl)}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    expect(own.headers['cache-control']).toBe('private, no-store');
    expect(own.headers.etag).toBeUndefined();
    expect(own.headers['last-modified']).toBeUndefined();
    // Nothing to revalidate: always answered whole.
    await http()
      .get(`${path(alice.downloadUrl)}/pass.pkpass`)
      .set('If-Modified-Since', new Date(Date.now() + 60_000).toUTCString())
      .expect(200);

    // The web service's download of her copy keeps Apple's validators and its 304s, for her
    // device only.
    const fetched = await latest(alice.serialNumber, tokens.alice).expect(200);
    expect(fetched.headers['cache-control']).toBe('private, no-cache');
    expect(fetched.headers.etag).toBeDefined();
    await latest(alice.serialNumber, tokens.alice)
      .set('If-Modified-Since', String(fetched.headers['last-modified']))
      .expect(304)
      .expect('cache-control', 'private, no-cache');
    await latest(alice.serialNumber, tokens.alice)
      .set('If-None-Match', String(fetched.headers.etag))
      .expect(304);

    // The shared pass is the same for everyone: any cache may keep it and asks again.
    const sharedPage = await http().get(`/p/${pass.slug}`).expect(200);
    expect(sharedPage.headers['cache-control']).toBe('no-cache');
    const shared = await http().get(`/p/${pass.slug}/pass.pkpass`).expect(200);
    expect(shared.headers['cache-control']).toBe('no-cache');
    await http()
      .get(`/p/${pass.slug}/pass.pkpass`)
      .set('If-None-Match', String(shared.headers.etag))
      .expect(304);
  });

  it("registers devices for a holder's copy and moves the holder's and the pass's counters", async () => {
    await register(devices.shared.library, pass.id, passToken, devices.shared.token).expect(201);
    await register(
      devices.alice1.library,
      alice.serialNumber,
      tokens.alice,
      devices.alice1.token,
    ).expect(201);
    await register(
      devices.alice1.library,
      alice.serialNumber,
      tokens.alice,
      devices.alice1.token,
    ).expect(200);
    await register(
      devices.alice2.library,
      alice.serialNumber,
      tokens.alice,
      devices.alice2.token,
    ).expect(201);
    await register(devices.bob.library, bob.serialNumber, tokens.bob, devices.bob.token).expect(
      201,
    );
    // Another holder's token, or the pass's, registers nothing for Alice.
    await register('dev-x', alice.serialNumber, tokens.bob, deviceToken(9)).expect(401);
    await register('dev-x', alice.serialNumber, passToken, deviceToken(9)).expect(401);
    // A device may hold the shared pass and a personal copy side by side.
    await register(
      devices.shared.library,
      alice.serialNumber,
      tokens.alice,
      devices.shared.token,
    ).expect(201);
    await http()
      .delete(
        passKit(
          `/devices/${devices.shared.library}/registrations/${PASS_TYPE_ID}/${alice.serialNumber}`,
        ),
      )
      .set('Authorization', `ApplePass ${tokens.alice}`)
      .expect(200);

    expect(await passCounters()).toMatchObject({
      appleIssuedCount: 5,
      appleActiveCount: 4,
      totalActiveCount: 4,
    });
    expect((await holder(alice)).appleInstalledCount).toBe(2);
    expect((await holder(bob)).appleInstalledCount).toBe(1);

    // Each registration records the versions the device was just given: the pass's, and for a
    // holder's copy that holder's (0 for the shared pass).
    const held = await testApp.app
      .get(DataSource)
      .query<Record<string, unknown>[]>(
        'SELECT r.held_pass_version, r.held_holder_version, p.version AS pass_version, ' +
          'h.version AS holder_version FROM wallet_a_registration r ' +
          'JOIN pass p ON p.id = r.pass_id LEFT JOIN holder h ON h.id = r.holder_id ' +
          'WHERE r.pass_id = ? AND r.removed_time IS NULL',
        [pass.id],
      );
    expect(held).toHaveLength(4);
    for (const row of held) {
      expect(Number(row.held_pass_version)).toBe(Number(row.pass_version));
      expect(Number(row.held_holder_version)).toBe(Number(row.holder_version ?? 0));
    }
    expect(held.filter((row) => Number(row.held_holder_version) > 0)).toHaveLength(3);

    const updated = await http()
      .get(passKit(`/devices/${devices.alice1.library}/registrations/${PASS_TYPE_ID}`))
      .expect(200);
    expect(updated.body.serialNumbers).toEqual([alice.serialNumber]);
    tokens.aliceTag = updated.body.lastUpdated as string;
  });

  it("pushes a holder's update to that holder's devices only, with the new value", async () => {
    // Creating the pass queued a pass-wide push; let it pass before counting.
    await sleep(500);
    apns.reset();
    await http()
      .patch(holderPath(alice))
      .set(owner.auth)
      .send({ fieldValues: { points: '300' } })
      .expect(200);
    await waitFor(() => pushed('alice1') === 1 && pushed('alice2') === 1, "Alice's pushes");
    await sleep(600);
    expect(pushed('shared')).toBe(0);
    expect(pushed('bob')).toBe(0);

    const changed = await http()
      .get(passKit(`/devices/${devices.alice1.library}/registrations/${PASS_TYPE_ID}`))
      .query({ passesUpdatedSince: tokens.aliceTag })
      .expect(200);
    expect(changed.body.serialNumbers).toEqual([alice.serialNumber]);
    const response = await latest(alice.serialNumber, tokens.alice).expect(200);
    const card = openPackage(response.body as Buffer, caPem()).passJson.storeCard as StoreCard;
    expect(card.headerFields[0]).toMatchObject({ value: '300', changeMessage: expect.any(String) });
  });

  it("pushes an import's changes to the changed holders' devices only", async () => {
    apns.reset();
    await http()
      .post(`/v1/wallet-pass/${pass.id}/holders/import`)
      .set(owner.auth)
      .send([{ externalId: 'bob', fieldValues: { points: '10' } }, { externalId: 'carol' }])
      .expect(200);
    await waitFor(() => pushed('bob') === 1, "Bob's push");
    await sleep(600);
    expect(pushed('shared')).toBe(0);
    expect(pushed('alice1') + pushed('alice2')).toBe(0);
    // One job for the whole import, not one per holder.
    const jobs = await testApp.app
      .get(DataSource)
      .query(
        'SELECT COUNT(*) AS n FROM wallet_a_push_job WHERE pass_id = ? AND holders_since IS NOT NULL',
        [pass.id],
      );
    expect(Number((jobs as { n: number | string }[])[0].n)).toBe(1);
  });

  it('pushes a pass update to every device, shared and holders’', async () => {
    apns.reset();
    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({
        passName: pass.passName,
        passMetadata: { ...metadata, description: 'Loyalty card, new look' },
      })
      .expect(200);
    await waitFor(
      () => (['shared', 'alice1', 'alice2', 'bob'] as const).every((d) => pushed(d) === 1),
      'every device pushed',
    );
  });

  it("sends a notification to chosen holders' devices only, shown on their passes only", async () => {
    await sleep(500);
    apns.reset();
    const targeted = await notify({ holderIds: [alice.id], notificationMessage: 'Alice only' });
    expect(targeted).toMatchObject({
      holderIds: [alice.id],
      appleNotificationSentCount: 2,
      totalNotificationSentCount: 2,
    });
    expect(pushed('alice1')).toBe(1);
    expect(pushed('alice2')).toBe(1);
    expect(pushed('shared')).toBe(0);
    expect(pushed('bob')).toBe(0);
    expect(await shownMessage(alice.serialNumber, tokens.alice)).toMatchObject({
      value: 'Alice only',
      changeMessage: '%@',
    });
    expect(await shownMessage(bob.serialNumber, tokens.bob)).toBeUndefined();
    expect(await shownMessage(pass.id, passToken)).toBeUndefined();

    // Without holderIds: every device, shared and holders', and the newer message everywhere.
    apns.reset();
    const everyone = await notify({ notificationMessage: 'Everyone' });
    expect(everyone).toMatchObject({ holderIds: null, appleNotificationSentCount: 4 });
    for (const device of ['shared', 'alice1', 'alice2', 'bob'] as const) {
      expect(pushed(device)).toBe(1);
    }
    expect(await shownMessage(alice.serialNumber, tokens.alice)).toMatchObject({
      value: 'Everyone',
    });
    expect(await shownMessage(pass.id, passToken)).toMatchObject({ value: 'Everyone' });
  });

  it('refuses holderIds that are not Active holders of the pass', async () => {
    const response = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({
        passSerialNumber: pass.id,
        notificationName: 'Bad',
        notificationMessage: 'x',
        holderIds: [alice.id, '019a2b3c-5555-7f60-8a1b-2c3d4e5f6a7b'],
      })
      .expect(400);
    expect(response.body.context).toEqual({ 'holderIds.1': 'is not a holder of this pass' });
    const tooMany = Array.from({ length: 1001 }, () => alice.id);
    await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: pass.id, notificationName: 'Bad', holderIds: tooMany })
      .expect(400);
  });

  it('voids a holder: its devices are pushed and get a voided package; its page says so', async () => {
    apns.reset();
    await http().delete(holderPath(alice)).set(owner.auth).expect(204);
    await waitFor(() => pushed('alice1') === 1 && pushed('alice2') === 1, "Alice's pushes");
    await sleep(600);
    expect(pushed('shared') + pushed('bob')).toBe(0);
    const response = await latest(alice.serialNumber, tokens.alice).expect(200);
    expect(openPackage(response.body as Buffer, caPem()).passJson.voided).toBe(true);
    const page = await http().get(path(alice.downloadUrl)).expect(200);
    expect(page.text).toContain('no longer valid');
    expect(page.text).not.toContain('Add to WalletA');
    await http()
      .get(`${path(alice.downloadUrl)}/pass.pkpass`)
      .expect(404);
  });
});
