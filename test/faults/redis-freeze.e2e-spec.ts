import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { TcpProxy } from '../fakes/tcp-proxy';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';

const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Redis stops answering without closing anything (SIGSTOP): the proxy in front of it holds every
 * byte for 8 s. Redis is an accelerator here (the shared rate limit, wake-ups, principal-cache
 * news), so requests meanwhile are answered within 5 s as ever, each 2xx, 429 or 503 with
 * Retry-After, and once Redis answers again so do the requests, at once.
 */
(redisUrl === undefined ? describe.skip : describe)('Redis frozen under traffic', () => {
  let proxy: TcpProxy;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    const target = new URL(redisUrl!);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    testApp = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    proxy.restore();
    await testApp.close();
    await proxy.close();
  });

  /** One round of a brand's traffic: a list with the owner's token, a pass created. */
  const round = async (index: number) => {
    const timings: { status: number; ms: number; retryAfter?: string }[] = [];
    const timed = async (call: () => request.Test) => {
      const started = Date.now();
      const response = await call();
      timings.push({
        status: response.status,
        ms: Date.now() - started,
        retryAfter: response.headers['retry-after'],
      });
    };
    await Promise.all([
      timed(() => request(testApp.server).get('/v1/wallet-pass').set(owner.auth)),
      timed(() =>
        request(testApp.server)
          .post('/v1/wallet-pass')
          .set(owner.auth)
          .send({
            passName: `Frozen ${index}`,
            passMetadata: { description: 'Card', organizationName: 'Brand' },
          }),
      ),
    ]);
    return timings;
  };

  it('answers every request within 5 s while Redis is frozen, and at once after the thaw', async () => {
    expect((await round(0)).map((each) => each.status)).toEqual([200, 201]);
    proxy.freeze();
    const during: { status: number; ms: number; retryAfter?: string }[] = [];
    const frozenUntil = Date.now() + 8000;
    let index = 1;
    while (Date.now() < frozenUntil) {
      during.push(...(await round(index++)));
    }
    proxy.restore();
    for (const answer of during) {
      expect(answer.ms).toBeLessThan(5000);
      expect([200, 201, 429, 503]).toContain(answer.status);
      if (answer.status !== 200 && answer.status !== 201) {
        expect(answer.retryAfter).toBeDefined();
      }
    }
    expect(during.length).toBeGreaterThan(4);
    const thawed = Date.now();
    const after = await round(index);
    expect(after.map((each) => each.status)).toEqual([200, 201]);
    expect(Date.now() - thawed).toBeLessThan(5000);
  }, 60_000);
});
