import { type ApnsClientOptions, ApnsClient, type ApnsResult } from '@app/wallet-a';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import * as http2 from 'node:http2';
import { ApnsFake } from './fakes/apns-fake';
import { TcpProxy } from './fakes/tcp-proxy';
import {
  createApnsSigningKey,
  createTestCa,
  issueCertificate,
  issueLoopbackServerCertificate,
} from './support/test-certificates';

const TOPIC = 'pass.com.example.wallet-pass-service';
const TEAM_ID = 'TEAM123456';
const KEY_ID = 'KEY1234567';

const deviceToken = (): string => randomBytes(32).toString('hex');
const deviceTokens = (count: number): string[] => Array.from({ length: count }, deviceToken);

/** Quick retries, so the retry tests take milliseconds. */
const FAST_RETRY = { attempts: 5, baseDelayMs: 2, maxDelayMs: 20 };

/** A raw HTTP/2 POST to the fake, for checking what the fake itself refuses. */
async function rawPush(
  target: string | http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body: string | Buffer = '{}',
): Promise<{ status: number; reason?: string; apnsId?: string }> {
  const session = typeof target === 'string' ? http2.connect(target) : target;
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ...headers }, { endStream: false });
      let status = 0;
      let apnsId: string | undefined;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        apnsId = h['apns-id'] as string | undefined;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status,
          apnsId,
          reason: text === '' ? undefined : (JSON.parse(text) as { reason: string }).reason,
        });
      });
      stream.on('error', reject);
      stream.end(body);
    });
  } finally {
    if (typeof target === 'string') session.close();
  }
}

jest.setTimeout(60_000);

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(new Logger()));

describe('ApnsClient with provider tokens, against the APNs fake', () => {
  const signingKey = createApnsSigningKey();
  let fake: ApnsFake;
  const clients: ApnsClient[] = [];

  const tokenClient = (overrides: Partial<ApnsClientOptions> = {}): ApnsClient => {
    const client = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: { kind: 'token', keyPem: signingKey.privateKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
      retry: FAST_RETRY,
      ...overrides,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    fake = await ApnsFake.start({
      topic: TOPIC,
      tokenAuth: { publicKeyPem: signingKey.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    fake.reset();
  });
  afterAll(() => fake.close());

  it('sends the empty Wallet payload with the headers APNs wants, and returns the apns-id', async () => {
    const token = deviceToken();
    const result = await tokenClient().send(token);

    expect(result).toEqual({ status: 'sent', apnsId: expect.any(String) });
    expect(fake.pushes).toHaveLength(1);
    const [push] = fake.pushes;
    expect(result).toEqual({ status: 'sent', apnsId: push.apnsId });
    expect(push.token).toBe(token);
    expect(push.rawPayload).toBe('{}');
    expect(push.headers).toMatchObject({
      ':method': 'POST',
      ':path': `/3/device/${token}`,
      'apns-topic': TOPIC,
      'apns-push-type': 'background',
      'apns-priority': '5',
      'content-type': 'application/json',
      authorization: expect.stringMatching(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(push.headers['apns-expiration']).toBeUndefined();
  });

  it('sends an alert push type with priority 10 and the expiration asked for', async () => {
    const expiration = new Date('2030-01-01T00:00:00Z');
    await tokenClient().send(deviceToken(), {
      pushType: 'alert',
      payload: { aps: { alert: 'hi' } },
      expiration,
    });
    expect(fake.pushes[0].headers).toMatchObject({
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(expiration.getTime() / 1000),
    });
    expect(fake.pushes[0].payload).toEqual({ aps: { alert: 'hi' } });
  });

  it('reuses one connection and one provider token for many pushes', async () => {
    const client = tokenClient();
    await client.sendMany(deviceTokens(50));
    await client.send(deviceToken());
    expect(fake.sessionsOpened).toBe(1);
    expect(new Set(fake.pushes.map((push) => push.headers.authorization)).size).toBe(1);
  });

  it('is refused with 403 InvalidProviderToken when signing with another key, without retrying', async () => {
    const other = createApnsSigningKey();
    const client = tokenClient({
      auth: { kind: 'token', keyPem: other.privateKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    const result = await client.send(deviceToken());
    expect(result).toEqual({ status: 'failed', reason: 'InvalidProviderToken', httpStatus: 403 });
    expect(fake.requests).toBe(1);
    expect(fake.pushes).toHaveLength(0);
  });

  it('is refused with InvalidProviderToken for another key id or team id', async () => {
    for (const auth of [
      { keyId: 'OTHERKEY12', teamId: TEAM_ID },
      { keyId: KEY_ID, teamId: 'OTHERTEAM1' },
    ]) {
      const result = await tokenClient({
        auth: { kind: 'token', keyPem: signingKey.privateKeyPem, ...auth },
      }).send(deviceToken());
      expect(result).toMatchObject({ status: 'failed', reason: 'InvalidProviderToken' });
    }
  });

  it('makes a new provider token when APNs says the old one expired, and delivers', async () => {
    // The first token is made 61 minutes in the past; APNs (the fake) refuses it as expired.
    const times = [Date.now() - 61 * 60 * 1000];
    const client = tokenClient({ clock: () => times.shift() ?? Date.now() });
    const token = deviceToken();

    const result = await client.send(token);

    expect(result).toMatchObject({ status: 'sent' });
    expect(fake.answersFor(token)).toEqual([
      { token, status: 403, reason: 'ExpiredProviderToken' },
      { token, status: 200 },
    ]);
  });

  it('takes every listener off a stream once it is closed, answered or not', async () => {
    // The holder of a stream's listeners may be in V8's old generation: left there, it would keep
    // each push's closures and stream alive until a full collection (see dropListeners).
    const nodeHttp2 = jest.requireActual<typeof http2>('node:http2');
    const connect = nodeHttp2.connect.bind(nodeHttp2);
    const streams: http2.ClientHttp2Stream[] = [];
    const spy = jest
      .spyOn(nodeHttp2, 'connect')
      .mockImplementation((...args: Parameters<typeof http2.connect>) => {
        const session = connect(...args);
        const request = session.request.bind(session);
        session.request = (...requestArgs: Parameters<typeof session.request>) => {
          const stream = request(...requestArgs);
          streams.push(stream);
          return stream;
        };
        return session;
      });
    try {
      const [sent, gone, timedOut] = deviceTokens(3);
      fake.unregister(gone, Date.now());
      fake.delay(600, { token: timedOut, times: 1 });
      const client = tokenClient({ requestTimeoutMs: 200, retry: { attempts: 1 } });
      const results = await client.sendMany([sent, gone, timedOut]);

      expect([sent, gone, timedOut].map((token) => results.get(token)?.status)).toEqual([
        'sent',
        'unregistered',
        'failed',
      ]);
      expect(streams).toHaveLength(3);
      await new Promise((resolve) => setImmediate(resolve));
      for (const stream of streams) {
        expect(stream.closed).toBe(true);
        expect(stream.eventNames()).toEqual(['error']);
        expect(stream.listenerCount('error')).toBe(1);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('reports 410 Unregistered with the time APNs gave', async () => {
    const token = deviceToken();
    const timestamp = Date.UTC(2026, 0, 2, 3, 4, 5);
    fake.unregister(token, timestamp);
    expect(await tokenClient().send(token)).toEqual({
      status: 'unregistered',
      reason: 'Unregistered',
      at: new Date(timestamp),
    });
  });

  it('reports 400 BadDeviceToken as unregistered', async () => {
    const bad = deviceToken();
    fake.rejectToken(bad);
    expect(await tokenClient().send(bad)).toEqual({
      status: 'unregistered',
      reason: 'BadDeviceToken',
    });
  });

  it('reports 400 DeviceTokenNotForTopic as unregistered', async () => {
    const otherTopic = tokenClient({ topic: 'pass.com.example.other' });
    expect(await otherTopic.send(deviceToken())).toEqual({
      status: 'unregistered',
      reason: 'DeviceTokenNotForTopic',
    });
  });

  it('reports a malformed device token as unregistered without asking APNs', async () => {
    const client = tokenClient();
    for (const token of ['', 'abc', 'z'.repeat(64), `${deviceToken()}0`]) {
      expect(await client.send(token)).toEqual({
        status: 'unregistered',
        reason: 'BadDeviceToken',
      });
    }
    expect(fake.requests).toBe(0);
  });

  it('refuses a payload above 4 KB without asking APNs', async () => {
    const result = await tokenClient().send(deviceToken(), { payload: { x: 'a'.repeat(5000) } });
    expect(result).toEqual({ status: 'failed', reason: 'PayloadTooLarge' });
    expect(fake.requests).toBe(0);
  });

  it('retries 429 with backoff and delivers once APNs recovers', async () => {
    const token = deviceToken();
    fake.failNext(2, 429, token);

    const result = await tokenClient().send(token);

    expect(result).toMatchObject({ status: 'sent' });
    expect(fake.answersFor(token).map((answer) => answer.status)).toEqual([429, 429, 200]);
    expect(fake.pushesFor(token)).toHaveLength(1);
  });

  it('retries 503 and delivers', async () => {
    const token = deviceToken();
    fake.failNext(1, 503);
    expect(await tokenClient().send(token)).toMatchObject({ status: 'sent' });
    expect(fake.pushesFor(token)).toHaveLength(1);
  });

  it('gives up on 500 after the allowed attempts', async () => {
    const token = deviceToken();
    fake.answer({ status: 500, reason: 'InternalServerError' });

    const result = await tokenClient({ retry: { ...FAST_RETRY, attempts: 3 } }).send(token);

    expect(result).toEqual({ status: 'failed', reason: 'InternalServerError', httpStatus: 500 });
    expect(fake.requests).toBe(3);
    expect(fake.pushes).toHaveLength(0);
  });

  it('fails other 4xx answers at once, with the reason', async () => {
    fake.answer({ status: 400, reason: 'BadTopic' });
    const result = await tokenClient().send(deviceToken());
    expect(result).toEqual({ status: 'failed', reason: 'BadTopic', httpStatus: 400 });
    expect(fake.requests).toBe(1);
  });

  it('retries a request that timed out', async () => {
    const token = deviceToken();
    fake.delay(1500, { token, times: 1 });

    const result = await tokenClient({ requestTimeoutMs: 400 }).send(token);

    expect(result).toMatchObject({ status: 'sent' });
    expect(fake.pushesFor(token)).toHaveLength(1);
  });

  it('fails after the allowed attempts when APNs cannot be reached', async () => {
    const closed = await ApnsFake.start({ topic: TOPIC });
    const url = closed.url;
    await closed.close();

    const client = tokenClient({ url, retry: { ...FAST_RETRY, attempts: 2 } });
    const result = await client.send(deviceToken());

    expect(result).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('keeps every connection under the SETTINGS_MAX_CONCURRENT_STREAMS the server announces', async () => {
    const narrow = await ApnsFake.start({
      topic: TOPIC,
      tokenAuth: { publicKeyPem: signingKey.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
      maxConcurrentStreams: 10,
    });
    try {
      narrow.delay(5);
      const tokens = deviceTokens(300);
      const results = await tokenClient({ url: narrow.url }).sendMany(tokens);

      expect([...results.values()].every((result) => result.status === 'sent')).toBe(true);
      expect(narrow.pushes).toHaveLength(300);
      expect(narrow.peakConcurrentStreams).toBeLessThanOrEqual(10);
      expect(narrow.peakConcurrentStreams).toBeGreaterThan(1);
    } finally {
      await narrow.close();
    }
  });

  it('delivers every push exactly once when the server sends GOAWAY mid-run', async () => {
    const tokens = deviceTokens(2000);
    fake.delay(1).goawayAfter(700);

    const results = await tokenClient().sendMany(tokens);

    expect(fake.sessionsOpened).toBeGreaterThanOrEqual(2);
    expect(fake.refusedStreams).toBeGreaterThan(0);
    expect([...results.values()].filter((result) => result.status !== 'sent')).toEqual([]);
    const counts = new Map<string, number>();
    for (const push of fake.pushes) counts.set(push.token, (counts.get(push.token) ?? 0) + 1);
    expect(counts.size).toBe(2000);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  });

  it('delivers every push when the connection dies mid-run (retried on a new one)', async () => {
    const tokens = deviceTokens(1000);
    fake.delay(1).destroyAfter(300);

    const results = await tokenClient().sendMany(tokens);

    expect(fake.sessionsOpened).toBeGreaterThanOrEqual(2);
    expect([...results.values()].filter((result) => result.status !== 'sent')).toEqual([]);
    // A push answered just before the connection died may be delivered twice (as with APNs).
    expect(new Set(fake.pushes.map((push) => push.token)).size).toBe(1000);
  });

  it('replaces a stalled connection (a PING unanswered) and retries its pushes on a new one', async () => {
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(fake.url).port) });
    try {
      const client = tokenClient({
        url: `http://127.0.0.1:${proxy.port}`,
        requestTimeoutMs: 300,
        pingTimeoutMs: 200,
        maxConcurrentStreams: 10,
      });
      expect(await client.send(deviceToken())).toMatchObject({ status: 'sent' });
      fake.reset();
      // The connection stalls with every push held: PINGs and pushes go unanswered.
      proxy.freeze();
      const tokens = deviceTokens(30);
      const sending = client.sendMany(tokens);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      proxy.restore();
      const results = await sending;

      expect([...results.values()].filter((result) => result.status !== 'sent')).toEqual([]);
      // The stalled connection was destroyed: what it held never reached APNs, and every push
      // went out once on a new one.
      expect(fake.pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());
    } finally {
      await proxy.close();
    }
  });

  it('spreads pushes over a pool of connections', async () => {
    fake.delay(2);
    const client = tokenClient({ connections: 3, maxConcurrentStreams: 20 });
    await client.sendMany(deviceTokens(200));
    expect(fake.sessionsOpened).toBe(3);
    expect(fake.pushes).toHaveLength(200);
  });

  it('pushes 10,000 tokens with bounded concurrency, each accepted exactly once', async () => {
    const tokens = deviceTokens(10_000);
    const client = tokenClient({ maxConcurrentStreams: 500 });
    const seen = new Map<string, ApnsResult>();

    const started = process.hrtime.bigint();
    const misplaced: number[] = [];
    for await (const { token, result, index } of client.sendEach(tokens)) {
      seen.set(token, result);
      if (tokens[index] !== token) misplaced.push(index);
    }
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;

    expect(seen.size).toBe(10_000);
    // Each result names its token's position, though results come in any order.
    expect(misplaced).toEqual([]);
    expect([...seen.values()].every((result) => result.status === 'sent')).toBe(true);
    expect(fake.pushes).toHaveLength(10_000);
    expect(new Set(fake.pushes.map((push) => push.token)).size).toBe(10_000);
    expect(fake.peakConcurrentStreams).toBeLessThanOrEqual(500);
    expect(fake.sessionsOpened).toBe(1);
    process.stdout.write(
      `APNs fake: 10,000 pushes in ${elapsedMs.toFixed(0)} ms (at most ${fake.peakConcurrentStreams} streams open)\n`,
    );
  });

  it('records every result through sendMany’s callback as it arrives', async () => {
    const tokens = deviceTokens(100);
    const gone = tokens[7];
    fake.unregister(gone);
    const recorded: Array<[string, ApnsResult['status']]> = [];

    const results = await tokenClient().sendMany(tokens, {}, async (token, result) => {
      await Promise.resolve();
      recorded.push([token, result.status]);
    });

    expect(recorded).toHaveLength(100);
    expect(results.get(gone)?.status).toBe('unregistered');
    expect(recorded.filter(([, status]) => status === 'sent')).toHaveLength(99);
  });

  it('reads tokens from an async iterable only as room frees up', async () => {
    let produced = 0;
    let maxAhead = 0;
    let consumed = 0;
    async function* cursor(): AsyncGenerator<string> {
      for (let i = 0; i < 200; i++) {
        produced++;
        maxAhead = Math.max(maxAhead, produced - consumed);
        yield deviceToken();
        await Promise.resolve();
      }
    }
    for await (const delivery of tokenClient().sendEach(cursor(), {}, 20)) {
      expect(delivery.result.status).toBe('sent');
      consumed++;
    }
    expect(consumed).toBe(200);
    expect(maxAhead).toBeLessThanOrEqual(21);
  });

  it('fails pushes made after close() without sending', async () => {
    const client = tokenClient();
    await client.send(deviceToken());
    await client.close();
    expect(await client.send(deviceToken())).toEqual({ status: 'failed', reason: 'ClientClosed' });
    expect(fake.pushes).toHaveLength(1);
  });
});

describe('the APNs fake refuses what APNs refuses', () => {
  const signingKey = createApnsSigningKey();
  let fake: ApnsFake;
  let jwt: string;

  beforeAll(async () => {
    fake = await ApnsFake.start({
      topic: TOPIC,
      tokenAuth: { publicKeyPem: signingKey.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    // A valid provider token, taken from what the real client sends.
    const client = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: { kind: 'token', keyPem: signingKey.privateKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    await client.send(deviceToken());
    await client.close();
    jwt = fake.pushes[0].headers.authorization.slice('bearer '.length);
  });
  afterAll(() => fake.close());

  const good = (): http2.OutgoingHttpHeaders => ({
    ':path': `/3/device/${deviceToken()}`,
    'apns-topic': TOPIC,
    'apns-push-type': 'background',
    'apns-priority': '5',
    authorization: `bearer ${jwt}`,
  });

  it('accepts a well-formed push and always answers with an apns-id', async () => {
    const answer = await rawPush(fake.url, good());
    expect(answer).toEqual({ status: 200, apnsId: expect.any(String) });
  });

  it.each<[string, (headers: http2.OutgoingHttpHeaders) => void, string | Buffer, number, string]>([
    ['GET', (h) => (h[':method'] = 'GET'), '{}', 405, 'MethodNotAllowed'],
    ['a wrong path', (h) => (h[':path'] = '/3/devices/abc'), '{}', 404, 'BadPath'],
    ['a non-hex token', (h) => (h[':path'] = '/3/device/xyz'), '{}', 400, 'BadDeviceToken'],
    ['no token', (h) => delete h.authorization, '{}', 403, 'MissingProviderToken'],
    [
      'a token that is not a JWT',
      (h) => (h.authorization = 'bearer x'),
      '{}',
      403,
      'InvalidProviderToken',
    ],
    ['no topic', (h) => delete h['apns-topic'], '{}', 400, 'MissingTopic'],
    ['another topic', (h) => (h['apns-topic'] = 'pass.other'), '{}', 400, 'DeviceTokenNotForTopic'],
    ['no push type', (h) => delete h['apns-push-type'], '{}', 400, 'InvalidPushType'],
    ['background at priority 10', (h) => (h['apns-priority'] = '10'), '{}', 400, 'BadPriority'],
    ['a bad expiration', (h) => (h['apns-expiration'] = 'soon'), '{}', 400, 'BadExpirationDate'],
    ['a bad apns-id', (h) => (h['apns-id'] = 'nope'), '{}', 400, 'BadMessageId'],
    ['an empty payload', () => undefined, '', 400, 'PayloadEmpty'],
    [
      'a payload over 4 KB',
      () => undefined,
      JSON.stringify({ a: 'x'.repeat(4100) }),
      413,
      'PayloadTooLarge',
    ],
    ['a payload that is not JSON', () => undefined, '{nope', 400, 'BadPayload'],
  ])('refuses %s', async (_, change, body, status, reason) => {
    const headers = good();
    change(headers);
    const answer = await rawPush(fake.url, headers, body);
    expect(answer).toEqual({ status, reason, apnsId: expect.any(String) });
  });

  it('refuses a provider token older than one hour as expired', async () => {
    const old = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: { kind: 'token', keyPem: signingKey.privateKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
      clock: () => Date.now() - 61 * 60 * 1000,
      retry: FAST_RETRY,
    });
    try {
      expect(await old.send(deviceToken())).toEqual({
        status: 'failed',
        reason: 'ExpiredProviderToken',
        httpStatus: 403,
      });
    } finally {
      await old.close();
    }
  });

  it('answers TooManyProviderTokenUpdates when a connection changes tokens within 20 minutes', async () => {
    // A second valid token, made a few seconds after the first.
    const other = await ApnsFake.start({
      topic: TOPIC,
      tokenAuth: { publicKeyPem: signingKey.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    const client = new ApnsClient({
      url: other.url,
      topic: TOPIC,
      auth: { kind: 'token', keyPem: signingKey.privateKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
    });
    await client.send(deviceToken());
    await Promise.all([client.close(), other.close()]);
    const secondJwt = other.pushes[0].headers.authorization;

    const session = http2.connect(fake.url);
    try {
      expect((await rawPush(session, good())).status).toBe(200);
      const answer = await rawPush(session, { ...good(), authorization: secondJwt });
      expect(answer).toMatchObject({ status: 429, reason: 'TooManyProviderTokenUpdates' });
      // Another connection may use it.
      expect((await rawPush(fake.url, { ...good(), authorization: secondJwt })).status).toBe(200);
    } finally {
      session.close();
    }
  });
});

describe('ApnsClient with the pass certificate (TLS client authentication)', () => {
  const ca = createTestCa('Test APNs CA');
  const serverCert = issueLoopbackServerCertificate(ca);
  const passCert = issueCertificate(ca, {
    commonName: `Pass Type ID: ${TOPIC}`,
    uid: TOPIC,
    organizationalUnit: TEAM_ID,
    usage: 'client',
  });
  const foreignCa = createTestCa('Someone else');
  const foreignCert = issueCertificate(foreignCa, {
    commonName: `Pass Type ID: ${TOPIC}`,
    uid: TOPIC,
    usage: 'client',
  });
  let fake: ApnsFake;
  const clients: ApnsClient[] = [];

  const certificateClient = (
    cert: { certPem: string; keyPem: string },
    overrides: Partial<ApnsClientOptions> = {},
  ): ApnsClient => {
    const client = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: { kind: 'certificate', ...cert, ca: ca.certPem },
      retry: FAST_RETRY,
      ...overrides,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    fake = await ApnsFake.start({
      topic: TOPIC,
      tls: { ...serverCert, clientCaPem: ca.certPem },
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    fake.reset();
  });
  afterAll(() => fake.close());

  it('presents the pass type certificate in the TLS handshake and is accepted', async () => {
    const token = deviceToken();
    const result = await certificateClient(passCert).send(token);

    expect(result).toMatchObject({ status: 'sent' });
    expect(fake.pushes).toHaveLength(1);
    expect(fake.pushes[0]).toMatchObject({ token, topic: TOPIC, rawPayload: '{}' });
    expect(fake.pushes[0].headers.authorization).toBeUndefined();
  });

  it('delivers many pushes over the one TLS connection', async () => {
    const results = await certificateClient(passCert).sendMany(deviceTokens(200));
    expect([...results.values()].every((result) => result.status === 'sent')).toBe(true);
    expect(fake.sessionsOpened).toBe(1);
  });

  it('is refused with 403 BadCertificate without a client certificate', async () => {
    const client = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: {
        kind: 'token',
        keyPem: createApnsSigningKey().privateKeyPem,
        keyId: KEY_ID,
        teamId: TEAM_ID,
        ca: ca.certPem,
      },
      retry: FAST_RETRY,
    });
    clients.push(client);
    expect(await client.send(deviceToken())).toEqual({
      status: 'failed',
      reason: 'BadCertificate',
      httpStatus: 403,
    });
    expect(fake.pushes).toHaveLength(0);
  });

  it('is refused with 403 BadCertificate with a certificate from another CA', async () => {
    expect(await certificateClient(foreignCert).send(deviceToken())).toEqual({
      status: 'failed',
      reason: 'BadCertificate',
      httpStatus: 403,
    });
    expect(fake.pushes).toHaveLength(0);
  });

  it('is refused when the certificate is for another pass type', async () => {
    const otherPassType = issueCertificate(ca, {
      commonName: 'Pass Type ID: pass.com.example.other',
      uid: 'pass.com.example.other',
      usage: 'client',
    });
    expect(await certificateClient(otherPassType).send(deviceToken())).toEqual({
      status: 'failed',
      reason: 'TopicDisallowed',
      httpStatus: 400,
    });
  });

  it('does not talk to a server whose certificate it cannot verify', async () => {
    const client = new ApnsClient({
      url: fake.url,
      topic: TOPIC,
      auth: { kind: 'certificate', ...passCert }, // no test CA: the server is not trusted
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    clients.push(client);
    const result = await client.send(deviceToken());
    expect(result).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/certificate/i),
    });
    expect(fake.requests).toBe(0);
  });
});
