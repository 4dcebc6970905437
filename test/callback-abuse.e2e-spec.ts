import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Anyone can POST to /callbacks/wallet-b. While Google's key server is unreachable, junk and
 * well-formed-but-forged callbacks must not turn into a fetch of Google's keys each.
 */
describe('WalletB callbacks while Google is unreachable', () => {
  let keyServer: Server;
  let fetches = 0;
  let testApp: TestApp;

  beforeAll(async () => {
    keyServer = createServer((_request, response) => {
      fetches += 1;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
    const port = (keyServer.address() as AddressInfo).port;
    testApp = await startTestApp({ WALLET_B_CALLBACK_KEYS_URL: `http://127.0.0.1:${port}/keys` });
  });
  afterAll(async () => {
    await testApp.close();
    await new Promise((resolve) => keyServer.close(resolve));
  });

  const post = (body: object) => request(testApp.server).post('/callbacks/wallet-b').send(body);

  it('refuses bodies that are not shaped like a callback without fetching any key', async () => {
    for (const body of [
      {},
      { hello: 'world' },
      [1, 2, 3],
      { protocolVersion: 'ECv2SigningOnly' },
    ]) {
      const response = await post(body).expect(400);
      expect(response.body).toMatchObject({ errorCode: 'INVALID_INPUT' });
    }
    expect(fetches).toBe(0);
  });

  it('answers forged callbacks 503 while backing off, with one fetch for a burst', async () => {
    const forged = {
      protocolVersion: 'ECv2SigningOnly',
      signature: 'c2lnbmF0dXJl',
      intermediateSigningKey: { signedKey: '{}', signatures: ['c2ln'] },
      signedMessage: '{}',
    };
    for (let i = 0; i < 25; i += 1) {
      const response = await post(forged).expect(503);
      expect(response.body).toMatchObject({ errorCode: 'UNAVAILABLE' });
    }
    expect(fetches).toBe(1);
  });
});
