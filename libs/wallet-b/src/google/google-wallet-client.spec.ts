import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleWalletFake } from '../../../../test/fakes/google-wallet-fake';
import { GoogleWalletClient, NOT_CONFIGURED_REASON } from './google-wallet-client';
import { parseServiceAccount } from './service-account';

const ISSUER = '3388000000012345678';
const classBody = (suffix: string) => ({ id: `${ISSUER}.${suffix}`, textModulesData: [] });
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('GoogleWalletClient against the Google Wallet fake', () => {
  let fake: GoogleWalletFake;
  let client: GoogleWalletClient;
  const account = () => parseServiceAccount(JSON.stringify(fake.serviceAccountJson()), 'test.json');
  const newClient = (overrides = {}) =>
    new GoogleWalletClient(fake.url, account(), {
      retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
      logger: quiet,
      ...overrides,
    });

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER });
  });
  beforeEach(() => {
    fake.reset();
    client = newClient();
  });
  afterAll(() => fake.close());

  it('gets an access token from token_uri once and reuses it', async () => {
    const before = fake.tokensIssued;
    expect(await client.insertClass('generic', classBody('a'))).toMatchObject({ ok: true });
    expect(
      await client.patchClass('generic', { id: `${ISSUER}.a`, textModulesData: [] }),
    ).toMatchObject({
      ok: true,
    });
    expect(fake.tokensIssued - before).toBe(1);
    expect(fake.calls.map((call) => call.status)).toEqual([200, 200]);
  });

  it('maps 409 and 404 to typed failures, without retrying them', async () => {
    await client.insertClass('generic', classBody('b'));
    expect(await client.insertClass('generic', classBody('b'))).toMatchObject({
      ok: false,
      kind: 'conflict',
    });
    expect(await client.patchClass('generic', classBody('missing'))).toMatchObject({
      ok: false,
      kind: 'not-found',
      status: 404,
    });
    expect(fake.calls).toHaveLength(3);
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    fake.failNext(1, 429).failNext(2, 500);
    expect(await client.insertClass('generic', classBody('c'))).toMatchObject({ ok: true });
    expect(fake.calls.map((call) => call.status)).toEqual([429, 500, 500, 200]);
  });

  it('gives up after the tries allowed, as unavailable', async () => {
    fake.failNext(10, 503);
    const result = await client.insertClass('generic', classBody('d'));
    expect(result).toMatchObject({ ok: false, kind: 'unavailable', status: 503 });
    expect(fake.calls).toHaveLength(4);
  });

  it('gets a new token once on 401', async () => {
    await client.insertClass('generic', classBody('e'));
    fake.revokeTokens();
    const before = fake.tokensIssued;
    expect(await client.patchClass('generic', classBody('e'))).toMatchObject({ ok: true });
    expect(fake.tokensIssued - before).toBe(1);
    expect(fake.calls.slice(-2).map((call) => call.status)).toEqual([401, 200]);
  });

  it('reports a token the fake refuses (wrong key) as rejected, not as sent', async () => {
    const wrong = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const impostor = new GoogleWalletClient(
      fake.url,
      { ...account(), privateKey: wrong },
      { logger: quiet },
    );
    const result = await impostor.insertClass('generic', classBody('f'));
    expect(result).toMatchObject({ ok: false, kind: 'rejected' });
    expect(fake.tokenRefusals.at(-1)).toBe('Invalid JWT Signature.');
    expect(fake.calls).toHaveLength(0);
  });

  it('reports a network failure (nothing listening) as unavailable after retries', async () => {
    const offline = new GoogleWalletClient('http://127.0.0.1:9', account(), {
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
      logger: quiet,
    });
    expect(await offline.insertClass('generic', classBody('g'))).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
  });

  it('ends a call to a Google that does not answer within two request deadlines, as unavailable', async () => {
    // Accepts connections and requests, answers none (a frozen host).
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      await client.insertClass('generic', classBody('token')); // a token, from the fake
      const frozen = new GoogleWalletClient(url, account(), {
        requestTimeoutMs: 200,
        retry: { attempts: 5, baseDelayMs: 5, maxDelayMs: 20 },
        logger: quiet,
      });
      // Its token request goes to the fake (token_uri), its API requests to the silent host.
      const started = Date.now();
      const result = await frozen.insertClass('generic', classBody('frozen'));
      const elapsed = Date.now() - started;
      expect(result).toMatchObject({ ok: false, kind: 'unavailable' });
      expect(result.ok === false && result.reason).toMatch(/timed out/);
      expect(frozen.callBudgetMs).toBe(400);
      expect(elapsed).toBeGreaterThanOrEqual(350);
      expect(elapsed).toBeLessThan(700);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('fails every call clearly without a service account', async () => {
    const unconfigured = new GoogleWalletClient(fake.url, null, { logger: quiet });
    expect(unconfigured.configured).toBe(false);
    expect(await unconfigured.insertClass('generic', classBody('h'))).toEqual({
      ok: false,
      kind: 'not-configured',
      reason: NOT_CONFIGURED_REASON,
    });
  });

  it('reports the notification quota as quota-exceeded, not as a retryable 429', async () => {
    await client.insertClass('generic', classBody('i'));
    const message = (n: number) => ({
      id: `m${n}`,
      header: 'News',
      body: `Message ${n}`,
      messageType: 'TEXT_AND_NOTIFY' as const,
    });
    for (let n = 1; n <= 3; n++) {
      expect(await client.addClassMessage('generic', `${ISSUER}.i`, message(n))).toMatchObject({
        ok: true,
      });
    }
    const calls = fake.calls.length;
    expect(await client.addClassMessage('generic', `${ISSUER}.i`, message(4))).toMatchObject({
      ok: false,
      kind: 'quota-exceeded',
    });
    expect(fake.calls.length - calls).toBe(1);
  });

  it("talks to each class type's collections, which refuse what Google refuses", async () => {
    const offer = {
      id: `${ISSUER}.offer`,
      issuerName: 'Brand',
      reviewStatus: 'UNDER_REVIEW' as const,
      title: '20 % off',
      provider: 'Brand',
    };
    // TypeScript already wants a redemption channel; Google, and so the fake, too.
    // @ts-expect-error -- the class Google refuses
    const refused = await client.insertClass('offer', offer);
    expect(refused).toMatchObject({ ok: false, kind: 'rejected', status: 400 });
    expect(refused.ok ? '' : refused.reason).toContain('redemptionChannel is required');
    expect(
      await client.insertClass('offer', { ...offer, redemptionChannel: 'BOTH' }),
    ).toMatchObject({ ok: true });
    expect(fake.calls.at(-1)!.path).toBe('/walletobjects/v1/offerClass');
    expect(fake.classTypeOf(`${ISSUER}.offer`)).toBe('offer');
    expect(await client.getClass('generic', `${ISSUER}.offer`)).toMatchObject({
      kind: 'not-found',
    });

    // An object's class must be of the object's own type.
    const insertObject = (collection: string) =>
      fetch(`${fake.url}/walletobjects/v1/${collection}`, {
        method: 'POST',
        headers: {
          authorization: fake.calls.at(-1)!.authorization!,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ id: `${ISSUER}.o1`, classId: `${ISSUER}.offer`, state: 'ACTIVE' }),
      });
    expect((await insertObject('loyaltyObject')).status).toBe(404);
    expect((await insertObject('offerObject')).status).toBe(200);
    expect(await client.patchObject('offer', `${ISSUER}.o1`, { state: 'EXPIRED' })).toMatchObject({
      ok: true,
      value: { state: 'EXPIRED', classId: `${ISSUER}.offer` },
    });
    // A PATCH may not leave a resource without what its type requires.
    expect(
      // @ts-expect-error -- a channel Google does not have
      await client.patchClass('offer', { ...offer, redemptionChannel: 'SOMETIMES' }),
    ).toMatchObject({ ok: false, status: 400 });
  });
});
