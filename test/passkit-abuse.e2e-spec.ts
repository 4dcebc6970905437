import request from 'supertest';
import { DataSource } from 'typeorm';
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

  it('refuses a push token that is not hexadecimal (400 keyed pushToken), storing nothing', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    const registerWith = (pushToken: unknown, library: string) =>
      request(testApp.server)
        .post(`/passkit/v1/devices/${library}/registrations/${PASS_TYPE_ID}/${pass.id}`)
        .set('Authorization', `ApplePass ${authToken}`)
        .set('X-Forwarded-For', '203.0.113.40')
        .send({ pushToken });
    const cases: [unknown, string][] = [
      ['not-a-push-token', 'must be 1 to 255 hexadecimal digits'],
      [`${deviceToken(1)} `, 'must be 1 to 255 hexadecimal digits'],
      [`${deviceToken(1).slice(2)}zz`, 'must be 1 to 255 hexadecimal digits'],
      ['../../3/device/x', 'must be 1 to 255 hexadecimal digits'],
      ['', 'must be 1 to 255 hexadecimal digits'],
      ['a'.repeat(256), 'must be 1 to 255 hexadecimal digits'],
      [12345, 'must be a string'],
    ];
    for (const [index, [pushToken, message]] of cases.entries()) {
      const answer = await registerWith(pushToken, `bad-token-${index}`).expect(400);
      expect(answer.body).toEqual({
        txId: expect.any(String),
        timestamp: expect.any(String),
        errorCode: 'INVALID_INPUT',
        context: { pushToken: message },
      });
    }
    const rows = await testApp.app
      .get(DataSource)
      .query<{ id: string }[]>('SELECT id FROM wallet_a_registration WHERE pass_id = ?', [pass.id]);
    expect(rows).toEqual([]);

    // Hex in either case, up to the column's 255 characters.
    await registerWith('A1'.repeat(32), 'upper-case').expect(201);
    await registerWith('0f'.repeat(32), 'lower-case').expect(201);
    await registerWith('c'.repeat(255), 'longest').expect(201);
  });
});
