import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('Rate limiting per caller', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
    owner = await OwnerSession.start(testApp.server); // one sign-in and one /me: 2 of the IP's and user's calls
  });
  afterAll(() => testApp.close());

  it('answers 429 RATE_LIMITED with Retry-After once a caller is over the limit', async () => {
    const { key } = await owner.createApiKey();
    for (let i = 1; i <= 5; i++) {
      const ok = await request(testApp.server).get('/v1/me').set('api-key', key).expect(200);
      expect(ok.headers['ratelimit-remaining']).toBe(String(5 - i));
    }
    const limited = await request(testApp.server).get('/v1/me').set('api-key', key).expect(429);
    expect(limited.body).toMatchObject({
      errorCode: 'RATE_LIMITED',
      errorMessage: 'Too many requests',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.body.txId).toBe(limited.headers['x-request-id']);

    // Another caller (the same user with a token) has a budget of its own.
    await request(testApp.server).get('/v1/me').set(bearer(owner.token)).expect(200);
  });

  it('does not limit health probes', async () => {
    for (let i = 0; i < 8; i++) await request(testApp.server).get('/health').expect(200);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
// Runs whenever a Redis is available to the test command (always in CI, see .ci/run).
(redisUrl === undefined ? describe.skip : describe)('Rate limiting shared through Redis', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const env = {
      RATE_LIMIT_PER_MINUTE: '3',
      REDIS_URL: redisUrl ?? '',
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    };
    first = await startTestApp(env);
    second = await startTestApp(env);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('counts one caller across two instances', async () => {
    const attempt = (app: TestApp) =>
      request(app.server)
        .post('/v1/auth/login')
        .send({ email: 'nobody@test.example', password: 'wrong-password' });
    expect((await attempt(first)).status).toBe(401);
    expect((await attempt(second)).status).toBe(401);
    expect((await attempt(first)).status).toBe(401);
    const limited = await attempt(second);
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
  });
});
