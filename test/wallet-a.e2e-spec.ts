import { newId } from '@app/core';
import { readPngHeader } from '@app/uploads';
import { Registration } from '@app/wallet-a';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApnsFake } from './fakes/apns-fake';
import { makePng } from './support/png';
import { binaryBody, openPackage, sha1 } from './support/pkpass';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { createApnsSigningKey } from './support/test-certificates';

const PASS_TYPE_ID = 'pass.example.e2e';
const TEAM_ID = 'TEAME2E001';
const KEY_ID = 'KEYE2E0001';

/** A device token as APNs hands them out: 32 bytes in hex. */
const deviceToken = (n: number) => n.toString(16).padStart(64, 'a');

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

describe('WalletA end to end', () => {
  let apns: ApnsFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let certDir: string;
  let pass: { id: string; slug: string; passName: string };
  let authToken: string;
  /** The pass's images, each uploaded at @3x: role, width, height. */
  const UPLOADED = [
    ['logo', 479, 149],
    ['icon', 114, 114],
    ['strip', 1124, 367],
  ] as const;
  const uploaded = new Map<string, Buffer>();
  const metadata = {
    description: 'Loyalty card',
    organizationName: 'Brand Ltd',
    backgroundColor: '#102030',
    displayTextColor: '#FFFFFF',
    topField: {
      key: 'points',
      label: 'Points',
      value: '100',
      changeMessage: 'You now have %@ points',
    },
    secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
    backFields: [
      {
        key: 'links',
        label: 'Links',
        value: [{ text: 'Stores', link: 'https://brand.example/stores' }],
      },
    ],
    qrUrl: 'https://brand.example/member/1',
    qrText: 'Member 1',
  };

  const http = () => request(testApp.server);
  const passKit = (path: string) => `/passkit/v1${path}`;
  const counters = async () =>
    (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200)).body as Record<
      string,
      number
    >;
  const register = (device: string, token: string, auth = `ApplePass ${authToken}`) =>
    http()
      .post(passKit(`/devices/${device}/registrations/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', auth)
      .send({ pushToken: token });
  const patchTopField = (value: string) =>
    http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({
        passName: pass.passName,
        passMetadata: { ...metadata, topField: { ...metadata.topField, value } },
      })
      .expect(200);

  beforeAll(async () => {
    const key = createApnsSigningKey();
    apns = await ApnsFake.start({
      topic: PASS_TYPE_ID,
      tokenAuth: { publicKeyPem: key.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    certDir = mkdtempSync(join(tmpdir(), 'wps-wallet-a-'));
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
    for (const [role, width, height] of UPLOADED) {
      // Gradients, so that a resize has something to average; odd sizes, so that it rounds.
      const content = makePng({
        width,
        height,
        rgba: [0, 0, 0, 255],
        gradientTo: [255, 0, 0, 255],
      });
      uploaded.set(role, content);
      const fileName = `${role}.png`;
      images.push({ fileName, uploadKey: await owner.upload(content, fileName) });
    }
    const created = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'Holder flow',
        passMetadata: metadata,
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201);
    pass = created.body;
    for (const [name, latitude] of [
      ['Store A', 48.85],
      ['Store B', 51.5],
    ] as const) {
      await http()
        .post('/v1/wallet-pass-location')
        .set(owner.auth)
        .send({
          name,
          latitude,
          longitude: 2.35,
          relevantText: `Near ${name}`,
          walletPass: { id: pass.id },
        })
        .expect(201);
    }
  });
  afterAll(async () => {
    await testApp.close();
    await apns.close();
  });

  it("serves the holder's page with both buttons", async () => {
    const page = await http().get(`/p/${pass.slug}`).expect(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('Holder flow');
    expect(page.text).toContain('Add to WalletA');
    expect(page.text).toContain('Add to WalletB');
    expect(page.text).toContain(`https://wallet.test/p/${pass.slug}/pass.pkpass`);
  });

  it('serves a signed package that openssl verifies, with every manifest hash right', async () => {
    const response = await http()
      .get(`/p/${pass.slug}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    expect(response.headers['content-type']).toBe('application/vnd.apple.pkpass');
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(response.headers['last-modified']).toBeDefined();

    const opened = openPackage(
      response.body as Buffer,
      readFileSync(join(certDir, 'dev-ca.pem'), 'utf8'),
    );
    expect(opened.signatureVerifies).toBe(true);
    const imageFiles = UPLOADED.flatMap(([role]) => [
      `${role}.png`,
      `${role}@2x.png`,
      `${role}@3x.png`,
    ]);
    expect(Object.keys(opened.files).sort()).toEqual(
      [...imageFiles, 'manifest.json', 'pass.json', 'signature'].sort(),
    );
    expect(Object.keys(opened.manifest).sort()).toEqual([...imageFiles, 'pass.json'].sort());
    for (const [name, content] of Object.entries(opened.files)) {
      if (name === 'manifest.json' || name === 'signature') continue;
      expect({ name, hash: opened.manifest[name] }).toEqual({ name, hash: sha1(content) });
    }
    // Each image was uploaded at @3x: that is the package's @3x as it is, and its @2x and @1x
    // are resized from it to two thirds and a third (rounded), so the three are sized 1:2:3.
    const sizeOf = (name: string) => {
      const header = readPngHeader(opened.files[name]);
      return header && [header.width, header.height];
    };
    for (const [role, width, height] of UPLOADED) {
      expect(opened.files[`${role}@3x.png`].equals(uploaded.get(role)!)).toBe(true);
      expect({
        role,
        '1x': sizeOf(`${role}.png`),
        '2x': sizeOf(`${role}@2x.png`),
        '3x': sizeOf(`${role}@3x.png`),
      }).toEqual({
        role,
        '1x': [Math.round(width / 3), Math.round(height / 3)],
        '2x': [Math.round((2 * width) / 3), Math.round((2 * height) / 3)],
        '3x': [width, height],
      });
    }
    expect(sizeOf('icon.png')).toEqual([38, 38]);
    expect(sizeOf('icon@2x.png')).toEqual([76, 76]);

    const passJson = opened.passJson;
    authToken = passJson.authenticationToken as string;
    expect(authToken.length).toBeGreaterThanOrEqual(16);
    expect(passJson).toMatchObject({
      formatVersion: 1,
      serialNumber: pass.id,
      passTypeIdentifier: PASS_TYPE_ID,
      teamIdentifier: TEAM_ID,
      organizationName: 'Brand Ltd',
      description: 'Loyalty card',
      backgroundColor: 'rgb(16, 32, 48)',
      foregroundColor: 'rgb(255, 255, 255)',
      webServiceURL: 'https://wallet.test/passkit',
      barcodes: [
        {
          format: 'PKBarcodeFormatQR',
          message: 'https://brand.example/member/1',
          messageEncoding: 'iso-8859-1',
          altText: 'Member 1',
        },
      ],
      locations: [
        { latitude: 48.85, longitude: 2.35, relevantText: 'Near Store A' },
        { latitude: 51.5, longitude: 2.35, relevantText: 'Near Store B' },
      ],
    });
    const storeCard = passJson.storeCard as Record<
      string,
      { key: string; value: string; changeMessage?: string }[]
    >;
    expect(storeCard.headerFields).toEqual([
      { key: 'points', label: 'Points', value: '100', changeMessage: 'You now have %@ points' },
    ]);
    expect(storeCard.secondaryFields).toEqual([{ key: 'tier', label: 'Tier', value: 'Gold' }]);
    expect(storeCard.backFields[0].value).toMatch(
      /^Stores: https:\/\/wallet\.test\/l\/[A-Za-z0-9_-]+$/,
    );

    // The token is not stored in clear.
    const row = await testApp.app
      .get(DataSource)
      .query('SELECT wallet_a_token_hash, wallet_a_token FROM pass WHERE id = ?', [pass.id]);
    expect(JSON.stringify(row)).not.toContain(authToken);

    await http()
      .get(`/p/${pass.slug}/pass.pkpass`)
      .set('If-None-Match', response.headers.etag)
      .expect(304);
  });

  it('does not serve drafts or unknown slugs', async () => {
    const draft = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName: 'Draft one', passMetadata: metadata })
      .expect(201);
    await http().get(`/p/${draft.body.slug}`).expect(404);
    await http().get(`/p/${draft.body.slug}/pass.pkpass`).expect(404);
    await http().get('/p/no-such-slug').expect(404);
  });

  it('registers devices as Apple specifies (201 new, 200 again, 401 wrong token) and counts them', async () => {
    await register('device-1', deviceToken(1)).expect(201);
    await register('device-1', deviceToken(1)).expect(200);
    await register('device-2', deviceToken(2)).expect(201);
    await register('device-3', deviceToken(3)).expect(201);
    await register('device-4', deviceToken(4), 'ApplePass wrong-token-wrong-token').expect(401);
    await register('device-4', deviceToken(4), 'Bearer whatever').expect(401);
    await http()
      .post(passKit(`/devices/device-4/registrations/${PASS_TYPE_ID}/no-such-pass`))
      .set('Authorization', `ApplePass ${authToken}`)
      .send({ pushToken: deviceToken(4) })
      .expect(401);
    expect(await counters()).toMatchObject({
      appleIssuedCount: 3,
      appleActiveCount: 3,
      totalIssuedCount: 3,
      totalActiveCount: 3,
    });
  });

  it('keeps the counters right under concurrent registrations', async () => {
    const attempts = [];
    for (let i = 0; i < 10; i++) {
      attempts.push(register(`burst-${i % 5}`, deviceToken(100 + (i % 5))).then((r) => r.status));
    }
    const statuses = await Promise.all(attempts);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(await counters()).toMatchObject({ appleIssuedCount: 8, appleActiveCount: 8 });
    for (let i = 0; i < 5; i++) {
      await http()
        .delete(passKit(`/devices/burst-${i}/registrations/${PASS_TYPE_ID}/${pass.id}`))
        .set('Authorization', `ApplePass ${authToken}`)
        .expect(200);
    }
    expect(await counters()).toMatchObject({ appleIssuedCount: 8, appleActiveCount: 3 });
  });

  it('pushes every registered device once when the pass changes; devices then fetch the new pass', async () => {
    const before = await http()
      .get(passKit(`/devices/device-1/registrations/${PASS_TYPE_ID}`))
      .expect(200);
    expect(before.body).toEqual({
      serialNumbers: [pass.id],
      lastUpdated: expect.stringMatching(/^\d+$/),
    });
    await http()
      .get(
        passKit(
          `/devices/device-1/registrations/${PASS_TYPE_ID}?passesUpdatedSince=${before.body.lastUpdated}`,
        ),
      )
      .expect(204);
    const first = await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);

    apns.reset();
    await patchTopField('250');
    await waitFor(() => apns.pushes.length >= 3, 'three pushes');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(apns.pushes.map((push) => push.token).sort()).toEqual([
      deviceToken(1),
      deviceToken(2),
      deviceToken(3),
    ]);
    for (const push of apns.pushes) {
      expect(push.topic).toBe(PASS_TYPE_ID);
      expect(push.payload).toEqual({});
    }

    const changed = await http()
      .get(
        passKit(
          `/devices/device-1/registrations/${PASS_TYPE_ID}?passesUpdatedSince=${before.body.lastUpdated}`,
        ),
      )
      .expect(200);
    expect(changed.body.serialNumbers).toEqual([pass.id]);
    expect(Number(changed.body.lastUpdated)).toBeGreaterThan(Number(before.body.lastUpdated));

    await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .set('If-Modified-Since', first.headers['last-modified'])
      .expect(200);
    const latest = await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const opened = openPackage(
      latest.body as Buffer,
      readFileSync(join(certDir, 'dev-ca.pem'), 'utf8'),
    );
    expect(opened.passJson.authenticationToken).toBe(authToken);
    expect(
      (opened.passJson.storeCard as { headerFields: { value: string }[] }).headerFields[0].value,
    ).toBe('250');
    await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .set('If-Modified-Since', latest.headers['last-modified'])
      .expect(304);
    await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', 'ApplePass nope-nope-nope-nope')
      .expect(401);
  });

  it('drops a registration when APNs answers 410, and the active count with it', async () => {
    apns.reset();
    apns.unregister(deviceToken(2));
    await patchTopField('300');
    await waitFor(
      async () => (await counters()).appleActiveCount === 2,
      'the active count to drop',
    );
    expect(await counters()).toMatchObject({ appleIssuedCount: 8, appleActiveCount: 2 });
    expect(apns.pushesFor(deviceToken(1))).toHaveLength(1);
  });

  it('unregisters (200, 401 with a wrong token) and accepts device logs', async () => {
    await http()
      .delete(passKit(`/devices/device-3/registrations/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', 'ApplePass wrong-token-wrong-token')
      .expect(401);
    await http()
      .delete(passKit(`/devices/device-3/registrations/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
    expect((await counters()).appleActiveCount).toBe(1);
    await http()
      .post(passKit('/log'))
      .send({ logs: ['Web service error for pass.example.e2e: something'] })
      .expect(200);
  });

  it('voids a deleted pass for devices and stops serving it to browsers', async () => {
    await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
    await http().get(`/p/${pass.slug}`).expect(404);
    const latest = await http()
      .get(passKit(`/passes/${PASS_TYPE_ID}/${pass.id}`))
      .set('Authorization', `ApplePass ${authToken}`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const opened = openPackage(
      latest.body as Buffer,
      readFileSync(join(certDir, 'dev-ca.pem'), 'utf8'),
    );
    expect(opened.passJson.voided).toBe(true);
  });

  it('pushes an update to 10,000 registered devices', async () => {
    const created = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName: 'Ten thousand', passMetadata: metadata })
      .expect(201);
    const repository = testApp.app.get(DataSource).getRepository(Registration);
    const now = new Date();
    for (let batch = 0; batch < 20; batch++) {
      await repository.insert(
        Array.from({ length: 500 }, (_, i) => ({
          id: newId(),
          workspaceId: owner.defaultWorkspaceId,
          passId: created.body.id,
          serialNumber: created.body.id,
          deviceLibraryId: `bulk-${batch}-${i}`,
          pushToken: deviceToken(1_000_000 + batch * 500 + i),
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        })),
      );
    }
    apns.reset();
    const started = Date.now();
    await http()
      .patch(`/v1/wallet-pass/${created.body.id}`)
      .set(owner.auth)
      .send({ passName: 'Ten thousand', passMetadata: { ...metadata, description: 'Changed' } })
      .expect(200);
    await waitFor(() => apns.pushes.length >= 10_000, '10,000 pushes', 120_000);
    const elapsed = Date.now() - started;
    expect(new Set(apns.pushes.map((push) => push.token)).size).toBe(10_000);
    process.stdout.write(`[wallet-a] 10,000-device update fan-out: ${elapsed} ms\n`);
  });
});
