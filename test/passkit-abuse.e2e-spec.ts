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
 * web service for it. What bounds such registrations (the devices one source keeps, the
 * refused tokens an address may send) is in test/registration-launch.e2e-spec.ts, with the
 * launch traffic it must never refuse; this file keeps what holds at the default settings.
 */
describe('PassKit registrations under abuse', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    walletA = await startWalletAApp({ TRUST_PROXY_HOPS: '1' });
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

  it('lets a device in after a few refused tokens from its address', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    for (let i = 0; i < 10; i += 1) {
      await register(pass.id, 'not-the-token', '203.0.113.99').expect(401);
    }
    await register(pass.id, authToken, '203.0.113.99').expect(201);
  });
});
