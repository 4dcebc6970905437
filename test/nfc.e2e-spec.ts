import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { NFC } from './support/pass-kind-fixtures';
import { binaryBody, openPackage } from './support/pkpass';
import { makePng } from './support/png';
import { startWalletAApp, waitFor, type WalletAApp } from './support/walleta-env';
import { GOOGLE_SAVE_URL_PREFIX } from '@app/wallet-b';

const ISSUER_ID = '3388000000055556666';

const spki = (key: ReturnType<typeof generateKeyPairSync>['publicKey']) =>
  key.export({ format: 'der', type: 'spki' });

/** Keys a brand might paste instead of its terminal's P-256 public key. */
const P384_KEY = spki(generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey).toString(
  'base64',
);
const RSA_KEY = spki(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey).toString(
  'base64',
);
const P256_PRIVATE_KEY = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  .privateKey.export({ format: 'der', type: 'pkcs8' })
  .toString('base64');
/** The right key with one byte after its DER structure, which OpenSSL alone would read. */
const TRAILING_BYTE_KEY = Buffer.concat([
  Buffer.from(NFC.encryptionPublicKey, 'base64'),
  Buffer.from([0]),
]).toString('base64');

const metadata = {
  description: 'Membership card',
  organizationName: 'Brand Ltd',
  topField: { key: 'points', label: 'Points', value: '0' },
  qrUrl: 'https://brand.example/member',
  nfc: NFC,
};

interface PassBody {
  id: string;
  slug: string;
  passMetadata: Record<string, unknown>;
}

interface HolderBody {
  id: string;
  downloadUrl: string;
  googleSaveUrl: string | null;
  nfcMessage: string | null;
}

describe('NFC on both wallets: Value Added Services and Smart Tap', () => {
  let fake: GoogleWalletFake;
  let app: WalletAApp;
  let images: { fileName: string; uploadKey: string }[];
  let pass: PassBody;
  const http = () => request(app.testApp.server);
  const holders = () => `/v1/wallet-pass/${pass.id}/holders`;
  const passJsonAt = async (path: string): Promise<Record<string, unknown>> => {
    const response = await http().get(path).buffer(true).parse(binaryBody).expect(200);
    const opened = openPackage(response.body as Buffer, app.caPem());
    expect(opened.signatureVerifies).toBe(true);
    return opened.passJson;
  };
  const holderPassJson = (holder: HolderBody) =>
    passJsonAt(`${new URL(holder.downloadUrl).pathname}/pass.pkpass`);
  /** The WalletB object a holder's save link saves. */
  const savedObject = async (holder: HolderBody): Promise<Record<string, unknown>> => {
    const redirect = await http().get(new URL(holder.googleSaveUrl!).pathname).expect(302);
    const url = redirect.headers.location;
    const jwt = verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), fake.publicKey);
    return (jwt.claims.payload as { loyaltyObjects: Record<string, unknown>[] }).loyaltyObjects[0];
  };
  const passCount = async () =>
    ((await http().get('/v1/wallet-pass').set(app.owner.auth).expect(200)).body as { items: [] })
      .items.length;
  let passes = 0;
  const create = (passMetadata: object, uploadInfoList = images) =>
    http()
      .post('/v1/wallet-pass')
      .set(app.owner.auth)
      .send({
        passName: `NFC card ${++passes}`,
        passMetadata,
        uploadInfoList,
        status: 'Published',
      });

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    app = await startWalletAApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      SCHEDULER_INTERVAL_MS: '200',
      ...fake.serviceEnv(),
    });
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await app.owner.upload(makePng(), fileName) });
    }
    pass = (await create(metadata).expect(201)).body as PassBody;
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('shows NFC in the response as given and writes all three keys into pass.json', async () => {
    expect(pass.passMetadata.nfc).toEqual(NFC);
    const json = await passJsonAt(`/p/${pass.slug}/pass.pkpass`);
    expect(json.nfc).toEqual({ ...NFC, requiresAuthentication: false });

    const withAuth = (
      await create({ ...metadata, nfc: { ...NFC, requiresAuthentication: true } }).expect(201)
    ).body as PassBody;
    expect((await passJsonAt(`/p/${withAuth.slug}/pass.pkpass`)).nfc).toEqual({
      ...NFC,
      requiresAuthentication: true,
    });

    const { nfc, ...withoutNfc } = metadata;
    expect(nfc).toBeDefined();
    const plain = (await create(withoutNfc).expect(201)).body as PassBody;
    expect(await passJsonAt(`/p/${plain.slug}/pass.pkpass`)).not.toHaveProperty('nfc');
  });

  it.each([
    ['an empty message', { message: '' }, 'passMetadata.nfc.message', 'must not be empty'],
    [
      'a message of 65 bytes',
      { message: 'M'.repeat(65) },
      'passMetadata.nfc.message',
      'must be at most 64 bytes of UTF-8 (it has 65)',
    ],
    [
      'a message of 33 two-byte characters (66 bytes)',
      { message: 'é'.repeat(33) },
      'passMetadata.nfc.message',
      'must be at most 64 bytes of UTF-8 (it has 66)',
    ],
    ['no message', { message: undefined }, 'passMetadata.nfc.message', 'must not be null'],
    [
      'a P-384 key',
      { encryptionPublicKey: P384_KEY },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'an RSA key',
      { encryptionPublicKey: RSA_KEY },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'a private key',
      { encryptionPublicKey: P256_PRIVATE_KEY },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'a key with a byte after it',
      { encryptionPublicKey: TRAILING_BYTE_KEY },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'a PEM with its BEGIN line',
      { encryptionPublicKey: `-----BEGIN PUBLIC KEY-----\n${NFC.encryptionPublicKey}` },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'no key at all',
      { encryptionPublicKey: 'aGVsbG8=' },
      'passMetadata.nfc.encryptionPublicKey',
      'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key',
    ],
    [
      'requiresAuthentication as text',
      { requiresAuthentication: 'yes' },
      'passMetadata.nfc.requiresAuthentication',
      'must be a boolean value',
    ],
  ])('refuses %s with a 400 keyed by its path, and writes nothing', async (_, change, key, why) => {
    const before = await passCount();
    const response = await create({ ...metadata, nfc: { ...NFC, ...change } }).expect(400);
    expect(response.body).toMatchObject({ errorCode: 'INVALID_INPUT' });
    expect(response.body.context).toEqual({ [key]: why });
    // An update is refused the same way and leaves the pass as it was.
    const patched = await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(app.owner.auth)
      .send({ passName: 'NFC card 1', passMetadata: { ...metadata, nfc: { ...NFC, ...change } } })
      .expect(400);
    expect(patched.body.context).toEqual({ [key]: why });
    expect(await passCount()).toBe(before);
    const stored = (await http().get(`/v1/wallet-pass/${pass.id}`).set(app.owner.auth).expect(200))
      .body as PassBody;
    expect(stored.passMetadata.nfc).toEqual(NFC);
  });

  it('takes a message of exactly 64 bytes, however many characters', async () => {
    await create({ ...metadata, nfc: { ...NFC, message: 'é'.repeat(32) } }).expect(201);
    await create({ ...metadata, nfc: { ...NFC, message: 'M'.repeat(64) } }).expect(201);
  });

  it("gives a holder's copy their own message on both wallets, and the pass's without one", async () => {
    await waitFor(() => fake.classes.has(`${ISSUER_ID}.${pass.id}`), 'the class');
    const walletBClass = fake.classes.get(`${ISSUER_ID}.${pass.id}`)!;
    expect(walletBClass).toMatchObject({ enableSmartTap: true, redemptionIssuers: [ISSUER_ID] });

    const own = (
      await http()
        .post(holders())
        .set(app.owner.auth)
        .send({ externalId: 'maya', nfcMessage: 'MEMBER-10442' })
        .expect(201)
    ).body as HolderBody;
    expect(own.nfcMessage).toBe('MEMBER-10442');
    expect((await holderPassJson(own)).nfc).toEqual({
      ...NFC,
      message: 'MEMBER-10442',
      requiresAuthentication: false,
    });
    expect(await savedObject(own)).toMatchObject({ smartTapRedemptionValue: 'MEMBER-10442' });

    // Back to the pass's message: its response, its package and its object say so.
    const reset = (
      await http()
        .patch(`${holders()}/${own.id}`)
        .set(app.owner.auth)
        .send({ nfcMessage: null })
        .expect(200)
    ).body as HolderBody;
    expect(reset.nfcMessage).toBe(NFC.message);
    expect(((await holderPassJson(reset)).nfc as { message: string }).message).toBe(NFC.message);
    expect(await savedObject(reset)).toMatchObject({ smartTapRedemptionValue: NFC.message });
  });

  it("refuses a holder's message that is too long, or on a pass without NFC", async () => {
    const tooLong = await http()
      .post(holders())
      .set(app.owner.auth)
      .send({ externalId: 'long', nfcMessage: 'é'.repeat(33) })
      .expect(400);
    expect(tooLong.body.context).toEqual({
      nfcMessage: 'must be at most 64 bytes of UTF-8 (it has 66)',
    });
    const { nfc, ...withoutNfc } = metadata;
    expect(nfc).toBeDefined();
    const plain = (await create(withoutNfc).expect(201)).body as PassBody;
    const refused = await http()
      .post(`/v1/wallet-pass/${plain.id}/holders`)
      .set(app.owner.auth)
      .send({ externalId: 'maya', nfcMessage: 'MEMBER-1' })
      .expect(400);
    expect(refused.body.context).toEqual({
      nfcMessage: 'is for a pass with passMetadata.nfc; this pass has none',
    });
    const created = (
      await http()
        .post(`/v1/wallet-pass/${plain.id}/holders`)
        .set(app.owner.auth)
        .send({ externalId: 'maya' })
        .expect(201)
    ).body as HolderBody;
    expect(created.nfcMessage).toBeNull();
  });

  it('imports holders with their messages from a CSV column, all or nothing', async () => {
    const csv = (rows: string) =>
      http()
        .post(`${holders()}/import`)
        .set(app.owner.auth)
        .attach('file', Buffer.from(`externalId,nfcMessage\n${rows}`), 'members.csv');
    const refused = await csv(`csv-1,MEMBER-1\ncsv-2,${'M'.repeat(65)}\n`).expect(400);
    expect(refused.body.context).toEqual({
      'line 3': 'nfcMessage must be at most 64 bytes of UTF-8 (it has 65)',
    });
    expect((await csv('csv-1,MEMBER-1\ncsv-2,\n').expect(200)).body).toEqual({
      created: 2,
      updated: 0,
    });
    const list = (await http().get(holders()).set(app.owner.auth).expect(200)).body as {
      items: (HolderBody & { externalId: string })[];
    };
    const byId = Object.fromEntries(
      list.items
        .filter((item) => item.externalId.startsWith('csv-'))
        .map((item) => [item.externalId, item.nfcMessage]),
    );
    // An empty cell is no value: the pass's message.
    expect(byId).toEqual({ 'csv-1': 'MEMBER-1', 'csv-2': NFC.message });
  });
});
