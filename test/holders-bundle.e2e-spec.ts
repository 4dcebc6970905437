import { createHash } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { GoogleWalletFake } from './fakes/google-wallet-fake';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaryBody, openBundle, openPackage, sha1 } from './support/pkpass';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';
import { publishedPassWithDevices, startWalletAEnv, waitFor } from './support/walleta-env';
import { typeCheckPayloads } from './support/walletobjects-typecheck';

const ISSUER_ID = '3388000000077778888';
const BASE = 'https://wallet.test';

/** An event ticket whose seat and row are each guest's own. */
const TICKET = {
  passType: 'eventTicket',
  description: 'Ticket for the Riverside Gala',
  organizationName: 'Brand Ltd',
  backgroundColor: '#3B1F5C',
  displayTextColor: '#FFFFFF',
  event: {
    name: 'Riverside Gala',
    venueName: 'Riverside Hall',
    venueAddress: '1 River Street, Springfield',
    startTime: '2026-07-04T19:30:00+02:00',
  },
  auxiliaryFields: [
    { key: 'row', label: 'Row', value: '-' },
    { key: 'seat', label: 'Seat', value: '-' },
  ],
  barcodeFormat: 'QR',
  qrUrl: 'GALA-2026',
};

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
}

interface BundleBody {
  walletAUrl: string;
  googleSaveUrl: string | null;
  pageUrl: string;
}

interface SavedObject {
  id: string;
  classId: string;
  state: string;
  barcode: { value: string };
  groupingInfo: { groupingId: string; sortIndex: number };
}

const path = (url: string) => new URL(url).pathname;

describe('Bundles of holders: many passes, one tap', () => {
  let fake: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  /** The service's settings: WalletA's (APNs fake, signing material) and WalletB's. */
  let env: Record<string, string>;
  let caPem: () => string;
  let close: () => Promise<void>;
  let pass: { id: string; slug: string };
  let family: HolderBody[];

  const http = () => request(testApp.server);
  const holdersPath = (passId: string) => `/v1/wallet-pass/${passId}/holders`;
  const bundle = (passId: string, holderIds: unknown, auth: Record<string, string> = owner.auth) =>
    http()
      .post(`${holdersPath(passId)}/bundle`)
      .set(auth)
      .send({ holderIds });
  const issue = async (passId: string, externalId: string, seat: string) =>
    (
      await http()
        .post(holdersPath(passId))
        .set(owner.auth)
        .send({
          externalId,
          fieldValues: { row: 'F', seat },
          barcodeValue: `GALA-2026-F${seat}`,
          barcodeText: `Row F, seat ${seat}`,
        })
        .expect(201)
    ).body as HolderBody;
  const download = (url: string) => http().get(path(url)).buffer(true).parse(binaryBody);
  const bundleRows = async () =>
    Number(
      (
        await testApp.app
          .get(DataSource)
          .query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM holder_bundle')
      )[0].n,
    );
  /** The grouped save link the bundle's googleSaveUrl redirects to, opened as Google does. */
  const savedObjects = async (made: BundleBody) => {
    const redirect = await http()
      .get(path(made.googleSaveUrl!))
      .expect(302)
      .expect('cache-control', 'no-store');
    const { claims, type } = fake.openSaveLink(String(redirect.headers.location));
    const payload = claims.payload as Record<string, SavedObject[]>;
    return { type, payload, objects: payload.eventTicketObjects, url: redirect.headers.location };
  };

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    const walletA = await startWalletAEnv();
    env = { ...walletA.env, PUBLIC_BASE_URL: BASE, ...fake.serviceEnv() };
    testApp = await startTestApp(env);
    owner = await OwnerSession.start(testApp.server);
    caPem = () => readFileSync(join(walletA.certDir, 'dev-ca.pem'), 'utf8');
    close = async () => {
      await testApp.close();
      await walletA.apns.close();
      await fake.close();
    };
    ({ pass } = await publishedPassWithDevices(owner, 0, {
      passName: 'Riverside Gala 2026',
      passMetadata: TICKET,
    }));
    await waitFor(() => fake.classes.has(`${ISSUER_ID}.${pass.id}`), 'the class at Google');
    family = [];
    for (const [index, seat] of ['14', '15', '16'].entries()) {
      family.push(await issue(pass.id, `guest-${index + 1}`, seat));
    }
  });
  afterAll(() => close());

  it('answers 201 with three unguessable links under one token of its own', async () => {
    const made = await bundle(
      pass.id,
      family.map((holder) => holder.id),
    ).expect(201);
    const body = made.body as BundleBody;
    expect(Object.keys(body).sort()).toEqual(['googleSaveUrl', 'pageUrl', 'walletAUrl']);
    expect(body.pageUrl).toMatch(new RegExp(`^${BASE}/p/${pass.slug}/b/[A-Za-z0-9_-]{32}$`));
    expect(body.walletAUrl).toBe(`${body.pageUrl}/passes.pkpasses`);
    expect(body.googleSaveUrl).toBe(`${body.pageUrl}/wallet-b`);
    // The token is no holder's: each bundle gets one, random.
    const again = (
      await bundle(
        pass.id,
        family.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    expect(again.pageUrl).not.toBe(body.pageUrl);
    for (const holder of family) {
      expect(body.pageUrl).not.toContain(new URL(holder.downloadUrl).pathname.split('/').pop());
    }
  });

  it("downloads one .pkpasses: each holder's signed package, the one their own link serves", async () => {
    const made = (await bundle(pass.id, [family[2].id, family[0].id, family[1].id]).expect(201))
      .body as BundleBody;
    // No credentials: the link alone.
    const response = await download(made.walletAUrl)
      .expect(200)
      .expect('content-type', 'application/vnd.apple.pkpasses')
      .expect('content-disposition', `attachment; filename="${pass.slug}.pkpasses"`);
    const entries = openBundle(response.body as Buffer);
    // A flat zip of .pkpass files, in the order given.
    expect(entries.map((entry) => entry.name)).toEqual(
      [family[2], family[0], family[1]].map((holder) => `${holder.serialNumber}.pkpass`),
    );
    for (const [index, holder] of [family[2], family[0], family[1]].entries()) {
      const opened = openPackage(entries[index].content, caPem());
      expect(opened.signatureVerifies).toBe(true);
      expect(Object.keys(opened.files)).toEqual(
        expect.arrayContaining(['pass.json', 'manifest.json', 'signature', 'icon.png']),
      );
      const seat = ['16', '14', '15'][index];
      expect(opened.passJson).toMatchObject({
        serialNumber: holder.serialNumber,
        barcodes: [{ message: `GALA-2026-F${seat}`, altText: `Row F, seat ${seat}` }],
        eventTicket: {
          auxiliaryFields: expect.arrayContaining([{ key: 'seat', label: 'Seat', value: seat }]),
        },
      });
      // Byte for byte the package the holder's own link serves.
      const own = await download(`${holder.downloadUrl}/pass.pkpass`).expect(200);
      expect(sha1(entries[index].content)).toBe(sha1(own.body as Buffer));
    }
    // Several people's passes: kept by no cache, so without validators, and always whole.
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers.etag).toBeUndefined();
    expect(response.headers['last-modified']).toBeUndefined();
    const etag = `"${createHash('sha1')
      .update(response.body as Buffer)
      .digest('hex')}"`;
    await download(made.walletAUrl)
      .set('If-None-Match', etag)
      .set('If-Modified-Since', new Date(Date.now() + 60_000).toUTCString())
      .expect(200)
      .expect('cache-control', 'private, no-store');
  });

  it('saves every object with one WalletB link, grouped in the order given', async () => {
    const made = (
      await bundle(
        pass.id,
        family.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    const { type, payload, objects } = await savedObjects(made);
    expect(type).toBe('eventTicket');
    expect(Object.keys(payload)).toEqual(['eventTicketObjects']);
    expect(objects.map((object) => object.id)).toEqual(
      family.map((holder) => `${ISSUER_ID}.${holder.serialNumber}`),
    );
    const [{ groupingId }] = objects.map((object) => object.groupingInfo);
    expect(groupingId).toMatch(/^\S+$/);
    expect(objects.map((object) => object.groupingInfo)).toEqual([
      { groupingId, sortIndex: 1 },
      { groupingId, sortIndex: 2 },
      { groupingId, sortIndex: 3 },
    ]);
    expect(objects.map((object) => object.barcode.value)).toEqual([
      'GALA-2026-F14',
      'GALA-2026-F15',
      'GALA-2026-F16',
    ]);
    expect(objects.every((object) => object.classId === `${ISSUER_ID}.${pass.id}`)).toBe(true);
    // Google saved them (the fake checked each as Google does).
    for (const object of objects) expect(fake.objects.has(object.id)).toBe(true);
    // The same group at every visit; another bundle is another group.
    expect((await savedObjects(made)).objects[0].groupingInfo.groupingId).toBe(groupingId);
    const other = (await bundle(pass.id, [family[0].id, family[1].id]).expect(201))
      .body as BundleBody;
    expect((await savedObjects(other)).objects[0].groupingInfo.groupingId).not.toBe(groupingId);
    // What Google's own typings say of the payload.
    expect(typeCheckPayloads([{ name: 'bundle', schema: 'Resources', value: payload }])).toEqual(
      [],
    );
  });

  it("shows a page of every holder's pass with both buttons, under the holder page's policy", async () => {
    const made = (
      await bundle(
        pass.id,
        family.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    const page = await http()
      .get(path(made.pageUrl))
      .expect(200)
      .expect('content-type', 'text/html; charset=utf-8')
      // Names and barcodes: for this browser only, and not kept even there.
      .expect('cache-control', 'private, no-store');
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1] ?? '';
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(page.headers['content-security-policy']).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'; base-uri 'none'; ` +
        "form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.text.match(/<article class="card"/g)).toHaveLength(3);
    for (const seat of ['14', '15', '16']) {
      expect(page.text).toContain(`data-barcode-message="GALA-2026-F${seat}"`);
    }
    // The event, once: it is the same for the three.
    expect(page.text.match(/<section class="kind"/g)).toHaveLength(1);
    expect(page.text).toContain(`href="${made.walletAUrl}">Add to WalletA</a>`);
    expect(page.text).toMatch(
      /<a class="button walletb" href="https:\/\/pay\.google\.com\/gp\/v\/save\/[^"]+">Add to WalletB<\/a>/,
    );
    expect(page.text).toContain(`data-url="${made.pageUrl}"`);
    expect(page.text).toContain('3 passes');
    // The page's Add to WalletB is the grouped link of the three.
    const href = /class="button walletb" href="([^"]+)"/.exec(page.text)![1];
    const { claims } = fake.openSaveLink(href.replace(/&#38;/g, '&'));
    expect((claims.payload as Record<string, SavedObject[]>).eventTicketObjects).toHaveLength(3);
  });

  it('leaves a holder Voided later out of all three links; with none left, serves nothing', async () => {
    const guests = [
      await issue(pass.id, 'voided-1', '21'),
      await issue(pass.id, 'voided-2', '22'),
      await issue(pass.id, 'voided-3', '23'),
    ];
    const made = (
      await bundle(
        pass.id,
        guests.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    await http()
      .delete(`${holdersPath(pass.id)}/${guests[1].id}`)
      .set(owner.auth)
      .expect(204);

    const entries = openBundle((await download(made.walletAUrl).expect(200)).body as Buffer);
    expect(entries.map((entry) => entry.name)).toEqual([
      `${guests[0].serialNumber}.pkpass`,
      `${guests[2].serialNumber}.pkpass`,
    ]);
    const { objects } = await savedObjects(made);
    expect(objects.map((object) => object.id)).toEqual([
      `${ISSUER_ID}.${guests[0].serialNumber}`,
      `${ISSUER_ID}.${guests[2].serialNumber}`,
    ]);
    expect(objects.map((object) => object.groupingInfo.sortIndex)).toEqual([1, 2]);
    const page = await http().get(path(made.pageUrl)).expect(200);
    expect(page.text.match(/<article class="card"/g)).toHaveLength(2);
    expect(page.text).not.toContain('GALA-2026-F22');

    for (const guest of [guests[0], guests[2]]) {
      await http()
        .delete(`${holdersPath(pass.id)}/${guest.id}`)
        .set(owner.auth)
        .expect(204);
    }
    const empty = await http().get(path(made.pageUrl)).expect(200);
    expect(empty.text).toContain('These passes are no longer valid.');
    expect(empty.text).not.toContain('<article');
    expect(empty.text).not.toContain('Add to WalletA');
    await http().get(path(made.walletAUrl)).expect(404);
    await http().get(path(made.googleSaveUrl!)).expect(404);
  });

  it('refuses fewer than 2, more than 10 and repeated holders, writing nothing (400)', async () => {
    const before = await bundleRows();
    const extra: string[] = [];
    for (let i = 0; i < 8; i++) extra.push((await issue(pass.id, `crowd-${i}`, `${30 + i}`)).id);
    const eleven = [...family.map((holder) => holder.id), ...extra];
    expect(eleven).toHaveLength(11);
    const cases: [unknown, string][] = [
      [undefined, 'must not be null'],
      [[], 'must contain at least 2 elements'],
      [[family[0].id], 'must contain at least 2 elements'],
      [eleven, 'must contain no more than 10 elements'],
      [[family[0].id, family[1].id, family[0].id], 'must name each holder once'],
      [[family[0].id, 'not an id!'], `each value must match ^[a-zA-Z0-9-_]+$`],
    ];
    for (const [holderIds, message] of cases) {
      const answer = await bundle(pass.id, holderIds).expect(400);
      expect(answer.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { holderIds: message },
      });
    }
    // Ten is fine.
    await bundle(pass.id, eleven.slice(0, 10)).expect(201);
    await http()
      .post(`${holdersPath(pass.id)}/bundle`)
      .set(owner.auth)
      .send({ holderIds: eleven.slice(0, 2), extra: true })
      .expect(400);
    expect(await bundleRows()).toBe(before + 1);
  });

  it("refuses a holder of another pass or a Voided one (400), another workspace's pass or holder (404)", async () => {
    const before = await bundleRows();
    const { pass: otherPass } = await publishedPassWithDevices(owner, 0, { passMetadata: TICKET });
    const stranger = await issue(otherPass.id, 'stranger', '1');
    const ofAnotherPass = await bundle(pass.id, [family[0].id, stranger.id]).expect(400);
    expect(ofAnotherPass.body.context).toEqual({
      holderIds: `${stranger.id} (holderIds[1]) is a holder of another pass`,
    });
    const gone = await issue(pass.id, 'gone', '40');
    await http()
      .delete(`${holdersPath(pass.id)}/${gone.id}`)
      .set(owner.auth)
      .expect(204);
    const voided = await bundle(pass.id, [gone.id, family[0].id]).expect(400);
    expect(voided.body.context).toEqual({
      holderIds: `${gone.id} (holderIds[0]) is a Voided holder`,
    });

    // Workspace B: its own pass and holder.
    const workspaceB = await owner.createWorkspace('Bundles B');
    const inB = { ...owner.auth, 'x-workspace-id': workspaceB };
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      const uploadKey = await owner.upload(makePng(), fileName, { workspaceId: workspaceB });
      uploadInfoList.push({ fileName, uploadKey });
    }
    const passB = (
      await http()
        .post('/v1/wallet-pass')
        .set(inB)
        .send({
          passName: 'Workspace B ticket',
          passMetadata: TICKET,
          status: 'Published',
          uploadInfoList,
        })
        .expect(201)
    ).body as { id: string };
    const holdersB = [];
    for (const externalId of ['b-1', 'b-2']) {
      holdersB.push(
        (await http().post(holdersPath(passB.id)).set(inB).send({ externalId }).expect(201))
          .body as HolderBody,
      );
    }
    // Another workspace's holder under this pass: as unknown as any id.
    const foreignHolder = await bundle(pass.id, [family[0].id, holdersB[0].id]).expect(404);
    expect(foreignHolder.body).toMatchObject({
      errorCode: 'NOT_FOUND',
      context: { id: holdersB[0].id },
    });
    const unknown = await bundle(pass.id, [family[0].id, '019a2b3c-0000-7000-8000-000000000000']);
    expect(unknown.status).toBe(404);
    // Another workspace's pass, with its own holders, from this workspace.
    const foreignPass = await bundle(
      passB.id,
      holdersB.map((holder) => holder.id),
    ).expect(404);
    expect(foreignPass.body).toMatchObject({ errorCode: 'NOT_FOUND', context: { id: passB.id } });
    // In its own workspace it bundles.
    await bundle(
      passB.id,
      holdersB.map((holder) => holder.id),
      inB,
    ).expect(201);
    expect(await bundleRows()).toBe(before + 1);
  });

  it('lets writers bundle and refuses branded users (403) and callers without credentials (401)', async () => {
    const holderIds = [family[0].id, family[1].id];
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    await bundle(pass.id, holderIds, bearer(member.token)).expect(201);
    const apiKey = await owner.createApiKey();
    await bundle(pass.id, holderIds, { 'api-key': apiKey.key }).expect(201);
    const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
    await bundle(pass.id, holderIds, bearer(branded.token)).expect(403);
    await http()
      .post(`${holdersPath(pass.id)}/bundle`)
      .send({ holderIds })
      .expect(401);
  });

  it("answers 404 to a token that is no bundle of the pass, and to a deleted pass's bundle", async () => {
    const made = (
      await bundle(
        pass.id,
        family.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    const token = path(made.pageUrl).split('/').pop()!;
    const { pass: other } = await publishedPassWithDevices(owner, 0, { passMetadata: TICKET });
    // The token compares byte for byte (binary collation on MariaDB).
    const otherCase = token.replace(/[a-z]/gi, (c) =>
      c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(),
    );
    for (const suffix of ['', '/passes.pkpasses', '/wallet-b']) {
      for (const wrong of ['A'.repeat(32), otherCase]) {
        await http().get(`/p/${pass.slug}/b/${wrong}${suffix}`).expect(404);
      }
      await http().get(`/p/${other.slug}/b/${token}${suffix}`).expect(404);
    }
    const holders = [await issue(other.id, 'o-1', '1'), await issue(other.id, 'o-2', '2')];
    const doomed = (
      await bundle(
        other.id,
        holders.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    await http().get(path(doomed.pageUrl)).expect(200);
    await http().delete(`/v1/wallet-pass/${other.id}`).set(owner.auth).expect(204);
    for (const url of [doomed.pageUrl, doomed.walletAUrl, doomed.googleSaveUrl!]) {
      await http().get(path(url)).expect(404);
    }
  });

  it('is served by another instance on the same database (a stored bundle, not process state)', async () => {
    const made = (
      await bundle(
        pass.id,
        family.map((holder) => holder.id),
      ).expect(201)
    ).body as BundleBody;
    const second = await startTestApp(
      { ...env, WORKER_ENABLED: 'false' },
      { env: testApp.database.env, drop: () => Promise.resolve() },
    );
    try {
      const page = await request(second.server).get(path(made.pageUrl)).expect(200);
      expect(page.text.match(/<article class="card"/g)).toHaveLength(3);
      const zip = await request(second.server)
        .get(path(made.walletAUrl))
        .buffer(true)
        .parse(binaryBody)
        .expect(200);
      expect(openBundle(zip.body as Buffer)).toHaveLength(3);
    } finally {
      await second.close();
    }
  });
});
