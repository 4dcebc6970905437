import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { TcpProxy } from '../fakes/tcp-proxy';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';

const redisUrl = process.env.TEST_REDIS_URL;

const FREEZE_MS = 20_000;
/** Every request is answered within this long, during the freeze and after it. */
const ANSWER_BOUND_MS = 5000;
/** A request that takes this long has hung: recorded as such rather than awaited for ever. */
const HUNG_MS = 10_000;
/** Between bursts of traffic: a busy brand, not a benchmark (and fewer passes to check after). */
const BURST_PAUSE_MS = 50;
/** How often /health is probed during the freeze. */
const HEALTH_EVERY_MS = 1000;
/** Failed sign-ins one client IP may make (LOGIN_FAILURES_PER_IP) before it is refused. */
const LOGIN_FAILURES = 5;

interface Answer {
  what: string;
  status: number;
  ms: number;
  retryAfter?: string;
  body: unknown;
  /** When the request was sent, from the start of the freeze. */
  at: number;
}

/**
 * Redis stops answering without closing anything (SIGSTOP): the proxy in front of it holds every
 * byte for 20 s while two API instances share it and the database. Redis is an accelerator here
 * (the shared rate limit, wake-ups, principal-cache news), so a brand's traffic meanwhile (lists
 * with a token and with an API key, passes created, a client guessing passwords) is answered
 * within 5 s as ever, each 2xx, 429 or 503 with Retry-After; rate limits still hold, counted per
 * instance; a revoked key is refused at once by the other instance; `/health` says `degraded`.
 * Once Redis answers again, so does everything at once, and nothing made during the freeze is
 * missing.
 */
(redisUrl === undefined ? describe.skip : describe)('Redis frozen under traffic', () => {
  let proxy: TcpProxy;
  let first: TestApp;
  let second: TestApp;
  let owner: OwnerSession;
  let apiKey: string;

  beforeAll(async () => {
    const target = new URL(redisUrl!);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    const env = {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      // The brand's own traffic stays under its limit; the password guesser does not.
      RATE_LIMIT_PER_MINUTE: '100000',
      LOGIN_FAILURES_PER_IP: String(LOGIN_FAILURES),
    };
    first = await startTestApp(env);
    // The same database: the second instance only closes, the first drops it.
    second = await startTestApp(env, first.database);
    owner = await OwnerSession.start(first.server);
    apiKey = (await owner.createApiKey()).key;
  });
  afterAll(async () => {
    proxy.restore();
    await second.app.close();
    await first.close();
    await proxy.close();
  });

  let frozenAt = 0;
  const timed = async (what: string, call: () => request.Test): Promise<Answer> => {
    const started = Date.now();
    try {
      const response = await call().timeout(HUNG_MS);
      return {
        what,
        status: response.status,
        ms: Date.now() - started,
        retryAfter: response.headers['retry-after'],
        body: response.body as unknown,
        at: started - frozenAt,
      };
    } catch {
      return { what, status: 0, ms: Date.now() - started, body: null, at: started - frozenAt };
    }
  };

  const created: string[] = [];
  let index = 0;
  const health = () => timed('health', () => request(first.server).get('/health'));
  /** One burst of a brand's traffic on both instances, all at once. */
  const burst = () =>
    Promise.all([
      timed('list', () => request(first.server).get('/v1/wallet-pass').set(owner.auth)),
      timed('list by key', () =>
        request(second.server).get('/v1/wallet-pass').set('api-key', apiKey),
      ),
      timed('create', () =>
        request(first.server)
          .post('/v1/wallet-pass')
          .set(owner.auth)
          .send({
            passName: `Frozen ${++index}`,
            passMetadata: { description: 'Card', organizationName: 'Brand' },
          }),
      ),
      timed('wrong password', () =>
        request(first.server)
          .post('/v1/auth/login')
          .send({
            email: `guess-${randomBytes(4).toString('hex')}@test.example`,
            password: 'not the password',
          }),
      ),
    ]).then((answers) => {
      for (const answer of answers) {
        if (answer.what === 'create' && answer.status === 201) {
          created.push((answer.body as { id: string }).id);
        }
      }
      return answers;
    });

  /** A key used on one instance (so cached there), revoked on the other, then used again. */
  const revokeAcross = async () => {
    const created = await timed('create key', () =>
      request(first.server).post('/v1/api-keys').set(owner.auth).send({ name: 'revoked' }),
    );
    // (A key that was not created is used and revoked by a made-up id: each answer is recorded.)
    const { id = 'none', key = 'none' } = (created.body ?? {}) as { id?: string; key?: string };
    const use = () =>
      timed('revoked key', () => request(second.server).get('/v1/wallet-pass').set('api-key', key));
    const before = await use();
    const revoke = await timed('revoke', () =>
      request(first.server).delete(`/v1/api-keys/${id}`).set(owner.auth),
    );
    const after = await use();
    return { created, before, revoke, after };
  };

  it('answers every request within 5 s through a 20 s freeze, and at once after the thaw', async () => {
    const warmUp = await burst();
    expect(warmUp.map((answer) => [answer.what, answer.status])).toEqual([
      ['list', 200],
      ['list by key', 200],
      ['create', 201],
      ['wrong password', 401],
    ]);
    expect((await health()).body).toEqual({ status: 'ok', database: 'up', redis: 'up' });

    proxy.freeze();
    frozenAt = Date.now();
    const during: Answer[] = [];
    const probes: Answer[] = [];
    const traffic = (async () => {
      while (Date.now() - frozenAt < FREEZE_MS) {
        during.push(...(await burst()));
        await pause(BURST_PAUSE_MS);
      }
    })();
    // A load balancer's probe, once a second.
    const probing = (async () => {
      while (Date.now() - frozenAt < FREEZE_MS) {
        probes.push(await health());
        await pause(HEALTH_EVERY_MS);
      }
    })();
    // Halfway through, a key is revoked on one instance while the other has it cached.
    await pause(FREEZE_MS / 2);
    const revokedDuring = await revokeAcross();
    await Promise.all([traffic, probing]);
    const frozenFor = Date.now() - frozenAt;
    proxy.restore();
    const thawedAt = Date.now();

    // After the thaw: /health is ok again, every kind of request answers at once.
    let healthyIn: number | undefined;
    while (Date.now() - thawedAt < ANSWER_BOUND_MS * 2) {
      if (((await health()).body as { status?: string }).status === 'ok') {
        healthyIn = Date.now() - thawedAt;
        break;
      }
      await pause(100);
    }
    const after = await burst();
    const backIn = Date.now() - thawedAt;
    const revokedAfter = await revokeAcross();

    const brand = during.filter((answer) => answer.what !== 'wrong password');
    const guesses = during.filter((answer) => answer.what === 'wrong password');
    const slowest = (answers: Answer[]) => Math.max(...answers.map((answer) => answer.ms));
    process.stdout.write(
      `[faults] Redis frozen (${TEST_DB}, ${frozenFor} ms, two instances): ` +
        `${during.length} requests, slowest ${slowest(during)} ms, median ${median(during)} ms ` +
        `(brand ${slowest(brand)} ms; /health ${probes.length}, slowest ${slowest(probes)} ms); ` +
        `statuses ${JSON.stringify(countBy(during))}; ` +
        `first degraded /health ${probes.find((p) => isDegraded(p))?.at ?? 'never'} ms in; ` +
        `revoke during ${revokedDuring.revoke.ms} ms; /health ok ${healthyIn ?? 'never'} ms ` +
        `and a burst answered ${backIn} ms after the thaw\n`,
    );

    // Every request was answered within 5 s, with 2xx, 429 or 503 with Retry-After.
    expect([...during, ...probes].filter((answer) => answer.ms >= ANSWER_BOUND_MS)).toEqual([]);
    expect(created.length).toBeGreaterThan(20);
    const unexpected = brand.filter(
      (answer) =>
        !(answer.status >= 200 && answer.status < 300) &&
        !([429, 503].includes(answer.status) && answer.retryAfter !== undefined),
    );
    expect(unexpected).toEqual([]);
    // The sign-in limit still holds, counted by the instance: the guesser is refused.
    expect(guesses.filter((answer) => ![401, 429].includes(answer.status))).toEqual([]);
    expect(guesses.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(
      LOGIN_FAILURES,
    );
    expect(guesses.filter((answer) => answer.status === 429).length).toBeGreaterThan(0);
    // /health says degraded within 5 s of the freeze, and never fails the instance.
    expect(probes.filter((probe) => probe.status !== 200)).toEqual([]);
    const firstDegraded = probes.find((probe) => isDegraded(probe));
    expect(firstDegraded).toBeDefined();
    expect(firstDegraded!.at + firstDegraded!.ms).toBeLessThan(ANSWER_BOUND_MS);
    // A revoked key is refused by the other instance at once, during the freeze and after it.
    for (const revoked of [revokedDuring, revokedAfter]) {
      expect(Object.values(revoked).map((answer) => answer.status)).toEqual([201, 200, 204, 403]);
      for (const answer of Object.values(revoked)) expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
    }

    // Back within 5 s of the thaw.
    expect(healthyIn).toBeDefined();
    expect(healthyIn!).toBeLessThan(ANSWER_BOUND_MS);
    // (The guesser may be refused or not: the instance counts in Redis again once it has
    // answered, and Redis saw few of the guesses.)
    expect(after.map((answer) => [answer.what, answer.status])).toEqual([
      ['list', 200],
      ['list by key', 200],
      ['create', 201],
      ['wrong password', after[3].status === 429 ? 429 : 401],
    ]);
    expect((await health()).body).toEqual({ status: 'ok', database: 'up', redis: 'up' });
    expect(backIn).toBeLessThan(ANSWER_BOUND_MS);

    // Nothing made during the freeze is missing.
    for (const id of created) {
      await request(second.server).get(`/v1/wallet-pass/${id}`).set(owner.auth).expect(200);
    }
  }, 90_000);
});

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isDegraded(answer: Answer): boolean {
  const body = answer.body as { status?: string; redis?: string } | null;
  return body?.status === 'degraded' && body.redis === 'down';
}

function countBy(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = `${answer.what} ${answer.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function median(answers: Answer[]): number {
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
