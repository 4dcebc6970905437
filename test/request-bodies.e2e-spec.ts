import { MAX_LOCALIZATIONS } from '@app/passes';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Request bodies (and the PassKit log) as an attacker would send them: bodies built
 * to cost seconds of CPU in class-transformer, or megabytes of error context, or log floods.
 * Each is refused with the Error body and a small answer, and `/health` keeps answering within
 * a second while the attack is in flight. The largest bodies the API documents still pass.
 */

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DEFAULT_MAX_BYTES = 64 * 1024;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** JSON text as clients that escape every non-ASCII character (Python's default) write it. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

describe('Request bodies within the limits of their route', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let base: string;

  beforeAll(async () => {
    // One proxy hop trusted, so that the per-IP tests can speak for several clients.
    testApp = await startTestApp({ TRUST_PROXY_HOPS: '1' });
    await testApp.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(testApp.server.address() as AddressInfo).port}`;
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  async function send(
    path: string,
    body: NonNullable<RequestInit['body']>,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    // `duplex` (needed for a streamed body) is not in the DOM typings of RequestInit yet.
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    };
    if (body instanceof ReadableStream) init.duplex = 'half';
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: the assertions on `body` say so
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  /**
   * Sends the attack and polls `/health` until it is answered; every probe must be answered
   * within 3 s. Before the limits, these bodies held the event loop for 5 to 23 s; on this
   * two-core machine, under the whole parallel suite, a probe has taken up to 1.4 s without
   * any attack holding it, so the bound sits between the two.
   */
  async function whileHealthy(attack: () => Promise<Answer>): Promise<Answer> {
    let inFlight = true;
    const probes: number[] = [];
    const poll = (async () => {
      do {
        const started = performance.now();
        const health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
        await health.text();
        expect(health.status).toBe(200);
        probes.push(performance.now() - started);
      } while (inFlight);
    })();
    const answer = await attack().finally(() => {
      inFlight = false;
    });
    await poll;
    expect(probes.length).toBeGreaterThan(0);
    expect(Math.max(...probes)).toBeLessThan(3_000);
    return answer;
  }

  function expectErrorBody(
    answer: Answer,
    status: number,
    expected: { errorCode: string; errorMessage?: string; context: Record<string, unknown> },
  ): void {
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({
      txId: answer.headers.get('x-request-id'),
      timestamp: expect.stringMatching(ISO_8601),
      ...expected,
    });
    expect(answer.text.length).toBeLessThan(1_000);
  }

  const tooLarge = (limitBytes: number) => ({
    errorCode: 'PAYLOAD_TOO_LARGE',
    errorMessage: `Request body is larger than ${limitBytes} bytes`,
    context: { limitBytes },
  });

  describe('POST /v1/auth/login', () => {
    it('answers the 200,000-unknown-key body (2.7 MB) with 413 before reading it', async () => {
      const keys = Array.from({ length: 200_000 }, (_, i) => `"key${i}":0`).join(',');
      const attack = `{"email":"a@b.example","password":"x",${keys}}`;
      expect(attack.length).toBeGreaterThan(2_500_000);
      const answer = await whileHealthy(() => send('/v1/auth/login', attack));
      expectErrorBody(answer, 413, tooLarge(DEFAULT_MAX_BYTES));
    });

    it('answers the same body sent chunked (no Content-Length) with 413 as it crosses the limit', async () => {
      const chunk = new TextEncoder().encode(`"k":1,`.repeat(10_000));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{'));
          if (sent >= 50) {
            controller.enqueue(new TextEncoder().encode('"z":1}'));
            controller.close();
            return;
          }
          sent += 1;
          controller.enqueue(chunk);
        },
      });
      const answer = await whileHealthy(() => send('/v1/auth/login', stream));
      expectErrorBody(answer, 413, tooLarge(DEFAULT_MAX_BYTES));
    });

    it('answers a gzip body that inflates past the limit with 413', async () => {
      const bomb = gzipSync(`{"email":"${' '.repeat(20 * 1024 * 1024)}"}`);
      expect(bomb.length).toBeLessThan(DEFAULT_MAX_BYTES);
      const answer = await whileHealthy(() =>
        send('/v1/auth/login', bomb, { 'content-encoding': 'gzip' }),
      );
      expectErrorBody(answer, 413, tooLarge(DEFAULT_MAX_BYTES));
    });

    it('answers a body under the byte limit but with too many keys with 400, naming no key', async () => {
      const keys = Array.from({ length: 3_000 }, (_, i) => `"k${i}":1`).join(',');
      const attack = `{"email":"a@b.example","password":"x",${keys}}`;
      expect(attack.length).toBeLessThan(DEFAULT_MAX_BYTES);
      const answer = await whileHealthy(() => send('/v1/auth/login', attack));
      expectErrorBody(answer, 400, {
        errorCode: 'INVALID_INPUT',
        context: { body: 'must have at most 100 fields' },
      });
    });

    it('still signs in with an ordinary body', async () => {
      const answer = await send(
        '/v1/auth/login',
        JSON.stringify({ email: 'owner@test.example', password: 'owner-password-1' }),
      );
      expect(answer.status).toBe(200);
    });
  });

  describe('POST /v1/wallet-pass', () => {
    const passWith = (secondaryFields: unknown[]) => ({
      passName: `Attack ${Math.random()}`,
      passMetadata: { description: 'd', organizationName: 'o', secondaryFields },
    });

    it('answers a 600 KB array of empty objects in passMetadata.secondaryFields with 400', async () => {
      const attack = JSON.stringify(passWith(Array.from({ length: 200_000 }, () => ({}))));
      expect(attack.length).toBeGreaterThan(600_000);
      const answer = await whileHealthy(() =>
        send('/v1/wallet-pass', attack, { authorization: owner.auth.Authorization }),
      );
      expectErrorBody(answer, 400, {
        errorCode: 'INVALID_INPUT',
        context: { 'passMetadata.secondaryFields': 'must have at most 100 elements' },
      });
    });

    it('lists at most 50 problems of a body within the limits, and counts the rest', async () => {
      const answer = await send(
        '/v1/wallet-pass',
        JSON.stringify(passWith(Array.from({ length: 100 }, () => ({})))),
        { authorization: owner.auth.Authorization },
      );
      expect(answer.status).toBe(400);
      const context = answer.body.context as Record<string, unknown>;
      expect(Object.keys(context)).toHaveLength(51);
      expect(context['passMetadata.secondaryFields[0].key']).toBe('must not be null');
      // 100 objects without key and value, and the array itself longer than 4.
      expect(context['(more)']).toBe(201 - 50);
      expect(answer.text.length).toBeLessThan(5_000);
    });

    it('answers too many values in all (nested arrays under a read-only field) with 400', async () => {
      const nested = Array.from({ length: 70 }, () => Array.from({ length: 70 }, () => 0));
      const answer = await send(
        '/v1/wallet-pass',
        JSON.stringify({ ...passWith([]), id: nested }),
        { authorization: owner.auth.Authorization },
      );
      expectErrorBody(answer, 400, {
        errorCode: 'INVALID_INPUT',
        context: { body: 'must hold at most 4000 values in all' },
      });
    });

    it('accepts the largest pass the DTO allows, its texts written as \\uXXXX escapes', async () => {
      const FACE_KEYS = [
        'top',
        ...[1, 2].map((i) => `header${i}`),
        ...[1, 2].map((i) => `primary${i}`),
        ...[1, 2, 3, 4].map((i) => `second${i}`),
        ...[1, 2, 3, 4, 5].map((i) => `aux${i}`),
      ];
      const text = (length: number) => '語'.repeat(length);
      const url = (length: number) => `https://brand.example/${'a'.repeat(length - 22)}`;
      const field = (key: string) => ({
        key,
        label: text(255),
        value: text(2000),
        changeMessage: text(255),
      });
      const pass = {
        id: 'x'.repeat(36),
        createdTime: '2026-01-01T00:00:00.000Z',
        passName: `Largest ${text(200)}`,
        notificationHeader: text(255),
        passMetadata: {
          description: text(255),
          organizationName: text(255),
          backgroundColor: '#000000',
          displayTextColor: '#FFFFFF',
          // A boarding pass has the most face fields: 3 header, 2 primary, 4 + 5 below.
          passType: 'boardingPass',
          transit: {
            transitType: 'generic',
            carrier: text(255),
            number: 'x'.repeat(32),
            origin: { code: 'x'.repeat(16), name: text(255) },
            destination: { code: 'x'.repeat(16), name: text(255) },
            departureTime: '2026-05-01T08:00:00.000000000+02:00',
            arrivalTime: '2026-05-01T10:00:00.000000000+02:00',
          },
          topField: field('top'),
          headerFields: [1, 2].map((i) => field(`header${i}`)),
          primaryFields: [1, 2].map((i) => field(`primary${i}`)),
          secondaryFields: [1, 2, 3, 4].map((i) => field(`second${i}`)),
          auxiliaryFields: [1, 2, 3, 4, 5].map((i) => field(`aux${i}`)),
          backFields: Array.from({ length: 20 }, (_, i) => ({
            key: `back${i}`,
            label: text(255),
            value: Array.from({ length: 10 }, () => ({
              text: text(2000),
              link: url(2048),
              utmSource: text(100),
            })),
            changeMessage: text(255),
          })),
          qrUrl: url(2048),
          qrText: text(255),
          relevantDate: '2026-05-01T07:00:00.000000000+02:00',
          expirationDate: '2026-05-01T12:00:00.000000000+02:00',
          localizations: Object.fromEntries(
            Array.from({ length: MAX_LOCALIZATIONS }, (_, i) => [
              `l${String.fromCharCode(97 + i)}-${'x'.repeat(8)}-${'y'.repeat(8)}-${'z'.repeat(8)}`,
              {
                description: text(255),
                organizationName: text(255),
                passName: text(255),
                fields: Object.fromEntries([
                  ...FACE_KEYS.map((key) => [key, { label: text(255), value: text(2000) }]),
                  ...Array.from({ length: 20 }, (_, n) => [`back${n}`, { label: text(255) }]),
                ]),
              },
            ]),
          ),
        },
      };
      const json = asciiJson(pass);
      expect(json.length).toBeGreaterThan(6_500_000);
      const answer = await send('/v1/wallet-pass', json, {
        authorization: owner.auth.Authorization,
      });
      expect(answer.status).toBe(201);
    });
  });

  describe('POST /v1/promo-campaign/{id}/video-performance', () => {
    it('accepts the largest import: 1,000 records at every maximum, read-only fields echoed', async () => {
      const campaign = await send(
        '/v1/promo-campaign',
        JSON.stringify({ name: 'Largest import' }),
        { authorization: owner.auth.Authorization },
      );
      expect(campaign.status).toBe(201);
      const id = campaign.body.id as string;
      const records = Array.from({ length: 1000 }, (_, i) => ({
        id: '0193a5e0-8c11-7d2a-9f00-5b1e2c3d4e5f',
        campaignId: id,
        workspaceId: owner.defaultWorkspaceId,
        source: 'api',
        createdTime: '2026-03-14T12:00:00.000Z',
        updatedTime: '2026-03-14T12:00:00.000Z',
        createdBy: '0193a5e0-8c11-7d2a-9f00-5b1e2c3d4e5f',
        updatedBy: '0193a5e0-8c11-7d2a-9f00-5b1e2c3d4e5f',
        platform: 'SocialA',
        videoURL: `https://socialA.example/v/${String(i).padStart(4, '0')}${'v'.repeat(2048 - 30)}`,
        creatorHandle: '語'.repeat(255),
        views: 2_147_483_647,
        likes: 2_147_483_647,
        shares: 2_147_483_647,
        comments: 2_147_483_647,
        saves: 2_147_483_647,
        datePosted: '2026-03-14',
      }));
      const json = asciiJson(records);
      expect(json.length).toBeGreaterThan(3_500_000);
      const answer = await send(`/v1/promo-campaign/${id}/video-performance`, json, {
        authorization: owner.auth.Authorization,
      });
      expect(answer.status).toBe(201);
      expect(answer.body.imported).toBe(1000);
    });

    it('lists at most 50 problems of a CSV file with 20,000 unknown columns', async () => {
      const columns = Array.from({ length: 20_000 }, (_, i) => `c${i}`).join(',');
      const upload = await send(
        '/v1/uploads/storage',
        JSON.stringify({
          file: Buffer.from(`${columns}\n`).toString('base64'),
          fileName: 'wide.csv',
          bucket: 'campaign-assets',
        }),
        { authorization: owner.auth.Authorization },
      );
      expect(upload.status).toBe(201);
      const answer = await send(
        '/v1/promo-campaign',
        JSON.stringify({
          name: 'Wide CSV',
          videoPerformanceFileInfo: { fileKey: upload.body.uploadKey },
        }),
        { authorization: owner.auth.Authorization },
      );
      expect(answer.status).toBe(400);
      const context = answer.body.context as Record<string, unknown>;
      expect(Object.keys(context)).toHaveLength(51);
      expect(context['videoPerformanceFileInfo.line 1.c0']).toMatch(/^is not a known column/);
      // 20,000 unknown columns and the 3 required ones missing.
      expect(context['(more)']).toBe(20_003 - 50);
      expect(answer.text.length).toBeLessThan(20_000);
    });

    it('refuses 1,001 records before parsing them', async () => {
      const answer = await send(
        '/v1/promo-campaign/any-id/video-performance',
        JSON.stringify(Array.from({ length: 1001 }, () => ({}))),
        { authorization: owner.auth.Authorization },
      );
      expectErrorBody(answer, 400, {
        errorCode: 'INVALID_INPUT',
        context: { body: 'must have at most 1000 elements' },
      });
    });
  });

  describe('POST /v1/uploads/storage (JSON)', () => {
    it('accepts a base64 file of UPLOAD_MAX_BYTES', async () => {
      const max = testApp.config.upload.maxBytes;
      const file = Buffer.alloc(max, 0x20);
      file.write('%PDF-1.7\n');
      const answer = await send(
        '/v1/uploads/storage',
        JSON.stringify({
          file: file.toString('base64'),
          fileName: 'largest.pdf',
          bucket: 'campaign-assets',
        }),
        { authorization: owner.auth.Authorization },
      );
      expect(answer.status).toBe(201);
      expect(answer.body.size).toBe(max);
    });

    it('answers a body over the route limit with 413 naming that limit', async () => {
      const limit = Math.ceil((testApp.config.upload.maxBytes * 4) / 3) + 64 * 1024;
      const answer = await send(
        '/v1/uploads/storage',
        JSON.stringify({ file: 'A'.repeat(limit), fileName: 'x.pdf' }),
        { authorization: owner.auth.Authorization },
      );
      expectErrorBody(answer, 413, tooLarge(limit));
    });

    it('does not read a large body for a caller without credentials', async () => {
      const answer = await send(
        '/v1/uploads/storage',
        JSON.stringify({ file: 'A'.repeat(5 * 1024 * 1024), fileName: 'x.pdf' }),
      );
      expect(answer.status).toBe(401);
    });
  });

  describe('POST /passkit/v1/log (anonymous)', () => {
    const logFrom = (ip: string, body: string) =>
      send('/passkit/v1/log', body, { 'x-forwarded-for': ip });

    it('answers a 1 MB array with 413 (the route takes 8 KiB)', async () => {
      const attack = JSON.stringify({ logs: Array.from({ length: 100_000 }, () => 'flood') });
      expect(attack.length).toBeGreaterThan(800_000);
      const answer = await whileHealthy(() => logFrom('198.51.100.1', attack));
      expectErrorBody(answer, 413, tooLarge(8 * 1024));
    });

    it('answers more than 20 entries with 400', async () => {
      const answer = await logFrom(
        '198.51.100.2',
        JSON.stringify({ logs: Array.from({ length: 500 }, () => 'x') }),
      );
      expectErrorBody(answer, 400, {
        errorCode: 'INVALID_INPUT',
        context: { logs: 'must have at most 20 elements' },
      });
    });

    it('takes 10 posts a minute from one client IP, then 429 with Retry-After', async () => {
      const body = JSON.stringify({ logs: ['[2026-01-01] Web service error: 401'] });
      for (let i = 0; i < 10; i += 1) {
        expect((await logFrom('198.51.100.3', body)).status).toBe(200);
      }
      const limited = await whileHealthy(() => logFrom('198.51.100.3', body));
      expectErrorBody(limited, 429, {
        errorCode: 'RATE_LIMITED',
        errorMessage: 'Too many requests',
        context: { retryAfterSeconds: expect.any(Number) },
      });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // Another client has a budget of its own; the API's limit (600) is far away for both.
      expect((await logFrom('198.51.100.4', body)).status).toBe(200);
      // A flood of bodies over the limit from a fresh IP is refused by rate before size.
      const flood = JSON.stringify({ logs: Array.from({ length: 100_000 }, () => 'flood') });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await logFrom('198.51.100.5', flood)).status);
      expect(statuses).toEqual([...Array<number>(10).fill(413), 429, 429]);
    });
  });
});
