import request from 'supertest';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import {
  deviceToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAApp,
  type WalletAApp,
} from './support/walleta-env';

/**
 * The shared pass's authenticationToken is in its public package, so anyone can call Apple's
 * web service for it. These are the registrations an attacker would make to inflate the pass's
 * counters or churn push tokens, and the budgets that bound them.
 */
describe('PassKit registrations under abuse', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    walletA = await startWalletAApp({
      TRUST_PROXY_HOPS: '1',
      PASSKIT_REGISTRATIONS_PER_IP_PER_HOUR: '5',
      PASSKIT_REGISTRATIONS_PER_PASS_PER_MINUTE: '8',
    });
    ({ testApp, owner } = walletA);
  });
  afterAll(() => walletA.close());

  let fakeDevice = 0;
  const register = (passId: string, authToken: string, clientIp: string) =>
    request(testApp.server)
      .post(`/passkit/v1/devices/fake-${++fakeDevice}/registrations/${PASS_TYPE_ID}/${passId}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .set('X-Forwarded-For', clientIp)
      .send({ pushToken: deviceToken(fakeDevice) });
  const issuedCount = async (passId: string) =>
    (
      (await request(testApp.server).get(`/v1/wallet-pass/${passId}`).set(owner.auth).expect(200))
        .body as { appleIssuedCount: number }
    ).appleIssuedCount;

  it('limits the devices one client IP registers, and the counters stay put', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    for (let i = 0; i < 5; i += 1) await register(pass.id, authToken, '203.0.113.7').expect(201);
    const refused = await register(pass.id, authToken, '203.0.113.7').expect(429);
    expect(refused.body).toMatchObject({ errorCode: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(await issuedCount(pass.id)).toBe(5);
    // Another client is not held up by this one.
    await register(pass.id, authToken, '198.51.100.20').expect(201);
  });

  it('limits the registrations one pass takes a minute, from however many addresses', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    for (let i = 0; i < 8; i += 1) await register(pass.id, authToken, `192.0.2.${i}`).expect(201);
    const refused = await register(pass.id, authToken, '192.0.2.200').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(await issuedCount(pass.id)).toBe(8);
  });

  it('spends no budget on a request without the pass token', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    for (let i = 0; i < 10; i += 1) {
      await register(pass.id, 'not-the-token', '203.0.113.99').expect(401);
    }
    await register(pass.id, authToken, '203.0.113.99').expect(201);
  });
});
