import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { OwnerSession } from './support/session';
import {
  bearer,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  startTestApp,
  type TestApp,
} from './support/test-app';

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

  it("holds holder pages and Apple's web service to budgets of their own, not the API's", async () => {
    // A crowd behind one address: far more than the 5 a minute the API allows one IP.
    for (let i = 0; i < 8; i++) {
      await request(testApp.server).get('/p/no-such-pass').expect(404);
      await request(testApp.server)
        .get('/passkit/v1/devices/crowd-phone/registrations/pass.example.any')
        .expect(204);
    }
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

/** Sends a request as if from `ip` (the test apps trust one proxy hop). */
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

describe('Refused credentials are counted per client IP', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp({
      TRUST_PROXY_HOPS: '1',
      AUTH_FAILURES_PER_IP: '3',
      AUTH_FAILURE_WINDOW_SECONDS: '60',
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  it('answers 429 with Retry-After once an IP has sent too many bad keys and tokens, without checking the next credential', async () => {
    const { key } = await owner.createApiKey();
    const attacker = from('203.0.113.7');
    const http = () => request(testApp.server);
    const [, keyId] = key.split('.');
    await http()
      .get('/v1/me')
      .set({ ...attacker, 'api-key': `wpk.${keyId}.${'A'.repeat(43)}` })
      .expect(403);
    await http()
      .get('/v1/me')
      .set({ ...attacker, 'api-key': 'not-a-key' })
      .expect(403);
    await http()
      .get('/v1/me')
      .set({ ...attacker, ...bearer('forged.token.value') })
      .expect(401);

    const limited = await http()
      .get('/v1/me')
      .set({ ...attacker, ...bearer('another.forged.token') })
      .expect(429);
    expect(limited.body).toMatchObject({ errorCode: 'RATE_LIMITED' });
    expect(limited.body.txId).toBe(limited.headers['x-request-id']);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Even the right key is not looked at from that IP until the window ends.
    await http()
      .get('/v1/me')
      .set({ ...attacker, 'api-key': key })
      .expect(429);

    // Other clients are not affected, and a request without credentials guesses nothing.
    await http()
      .get('/v1/me')
      .set({ ...from('198.51.100.20'), 'api-key': key })
      .expect(200);
    await http().get('/v1/me').set(owner.auth).expect(200);
    await http().get('/v1/me').set(attacker).expect(401);
  });
});

describe('Rate limiting per user across API keys', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp({
      RATE_LIMIT_PER_MINUTE: '3',
      RATE_LIMIT_PER_USER_PER_MINUTE: '8',
    });
    owner = await OwnerSession.start(testApp.server); // the user's 1st request (GET /me)
  });
  afterAll(() => testApp.close());

  it('does not give a fresh budget to a new key of the same user', async () => {
    const first = await owner.createApiKey(); // user: 2
    const second = await owner.createApiKey(); // user: 3
    for (let i = 0; i < 3; i++) {
      await request(testApp.server).get('/v1/me').set('api-key', first.key).expect(200); // user: 4..6
    }
    await request(testApp.server).get('/v1/me').set('api-key', first.key).expect(429); // user: 7
    await request(testApp.server).get('/v1/me').set('api-key', second.key).expect(200); // user: 8

    // The second key has used 1 of its own 3, but the user is over 8.
    const limited = await request(testApp.server)
      .get('/v1/me')
      .set('api-key', second.key)
      .expect(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-limit']).toBe('8');
    await request(testApp.server).get('/v1/me').set(owner.auth).expect(429);
  });
});

describe('Sign-in throttling', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  const BACKOFF_MAX_SECONDS = 2;

  beforeAll(async () => {
    testApp = await startTestApp({
      TRUST_PROXY_HOPS: '1',
      LOGIN_FAILURES_PER_IP: '4',
      LOGIN_FAILURES_PER_EMAIL: '3',
      LOGIN_BACKOFF_MAX_SECONDS: String(BACKOFF_MAX_SECONDS),
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const attempt = (ip: string, email: string, password: string) =>
    request(testApp.server).post('/v1/auth/login').set(from(ip)).send({ email, password });

  it('refuses an IP with too many failures (429, Retry-After), whatever e-mail it tries next', async () => {
    for (let i = 0; i < 4; i++) {
      expect(
        (await attempt('203.0.113.50', `guess${i}@test.example`, 'wrong-password')).status,
      ).toBe(401);
    }
    const limited = await attempt('203.0.113.50', OWNER_EMAIL, OWNER_PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(BACKOFF_MAX_SECONDS);
    expect(retryAfter).toBeLessThanOrEqual(900);

    expect((await attempt('203.0.113.51', OWNER_EMAIL, OWNER_PASSWORD)).status).toBe(200);
  });

  it('backs off one e-mail address across IPs, but not for the account at its recent IP, and for at most the cap elsewhere', async () => {
    // The victim signs in once (from 127.0.0.1, without X-Forwarded-For): their recent IP.
    const victim = await owner.addMember('member', [owner.defaultWorkspaceId]);

    // A stranger's burst from a new IP per guess, so the per-IP limit never applies.
    const answers: { status: number; retryAfter: number }[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await attempt(`198.51.100.${i + 1}`, victim.email, `guess-${i}-password`);
      answers.push({
        status: response.status,
        retryAfter: Number(response.headers['retry-after']),
      });
    }
    // Three guesses are checked, then the address is locked and guesses are not even checked.
    expect(answers.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(4);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(8);
    for (const answer of limited) {
      expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
      expect(answer.retryAfter).toBeLessThanOrEqual(BACKOFF_MAX_SECONDS);
    }

    // From the IP the victim signed in from before, the right password works at once.
    await request(testApp.server)
      .post('/v1/auth/login')
      .send({ email: victim.email, password: victim.password })
      .expect(200);

    // From a new IP they wait at most one lock (LOGIN_BACKOFF_MAX_SECONDS), then get in.
    const started = Date.now();
    let answer = await attempt('192.0.2.99', victim.email, victim.password);
    if (answer.status === 429) {
      const wait = Number(answer.headers['retry-after']);
      expect(wait).toBeLessThanOrEqual(BACKOFF_MAX_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      answer = await attempt('192.0.2.99', victim.email, victim.password);
    }
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan((BACKOFF_MAX_SECONDS + 1) * 1000);
  });

  it('counts wrong current passwords of PATCH /v1/me/password as failed sign-ins', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    const change = (currentPassword: string) =>
      request(testApp.server)
        .patch('/v1/me/password')
        .set({ ...bearer(member.token), ...from('203.0.113.80') })
        .send({ currentPassword, newPassword: 'a fresh passphrase 7' });
    for (let i = 0; i < 3; i++) expect((await change(`wrong-${i}-password`)).status).toBe(403);
    const limited = await change(`wrong-again-password`);
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('RATE_LIMITED');
  });
});

// Runs whenever a Redis is available to the test command (always in CI, see .ci/run).
(redisUrl === undefined ? describe.skip : describe)(
  'Sign-in throttling shared through Redis',
  () => {
    let first: TestApp;
    let second: TestApp;

    beforeAll(async () => {
      const env = {
        TRUST_PROXY_HOPS: '1',
        LOGIN_FAILURES_PER_IP: '3',
        LOGIN_FAILURES_PER_EMAIL: '2',
        LOGIN_BACKOFF_MAX_SECONDS: '30',
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

    const attempt = (app: TestApp, ip: string, email: string) =>
      request(app.server)
        .post('/v1/auth/login')
        .set(from(ip))
        .send({ email, password: 'wrong-password' });

    it('counts one e-mail address across two instances', async () => {
      expect((await attempt(first, '203.0.113.1', 'target@test.example')).status).toBe(401);
      expect((await attempt(second, '203.0.113.2', 'target@test.example')).status).toBe(401);
      const limited = await attempt(first, '203.0.113.3', 'target@test.example');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('counts one client IP across two instances', async () => {
      expect((await attempt(first, '203.0.113.9', 'a@test.example')).status).toBe(401);
      expect((await attempt(second, '203.0.113.9', 'b@test.example')).status).toBe(401);
      expect((await attempt(first, '203.0.113.9', 'c@test.example')).status).toBe(401);
      const limited = await attempt(second, '203.0.113.9', 'd@test.example');
      expect(limited.status).toBe(429);
      expect(limited.body.errorCode).toBe('RATE_LIMITED');
    });
  },
);
