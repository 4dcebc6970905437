import { PassesService } from '@app/passes';
import express from 'express';
import helmet from 'helmet';
import { createHash } from 'node:crypto';
import request, { type Response } from 'supertest';
import { API_POLICY, helmetOptions } from '../apps/api/src/security-headers';
import { makePng, PNG_SIGNATURE } from './support/png';
import { binaryBody } from './support/pkpass';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

/** What helmet adds to every answer, whatever the route and status. */
function expectHelmetHeaders(response: Response): void {
  expect(response.headers).toMatchObject({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'strict-transport-security': expect.stringContaining('max-age='),
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
  });
  expect(response.headers['x-powered-by']).toBeUndefined();
}

describe('Security headers', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let slug: string;
  let images: { fileName: string; uploadKey: string }[];

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      const png = makePng({ width: 8, height: 8, rgba: [26, 43, 60, 255] });
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(png, fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'Headers card',
        passMetadata: {
          description: 'Loyalty card',
          organizationName: 'Brand Ltd',
          backgroundColor: '#1A2B3C',
        },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    slug = (created.body as { slug: string }).slug;
    images = uploadInfoList;
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  it.each([
    ['an API answer', '/v1/me', 200],
    ['a refused request', '/v1/wallet-pass', 401],
    ['an unknown route', '/v1/no-such-route', 404],
    ['the OpenAPI JSON', '/docs-json', 200],
    ['a short link', '/l/no-such-link', 404],
    ['the PassKit web service', '/passkit/v1/passes/pass.x/no-such-pass', 401],
    ['a file link without signature', '/files/pass-assets/x/y/logo.png', 403],
    ['health', '/health', 200],
  ])('puts them on %s, with a policy that allows nothing', async (_label, path, status) => {
    const response = await http()
      .get(path)
      .set(path === '/v1/me' ? owner.auth : {})
      .expect(status);
    expectHelmetHeaders(response);
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
    );
  });

  describe('Cache-Control on authenticated routes', () => {
    let apiKey: Record<string, string>;

    beforeAll(async () => {
      apiKey = { 'api-key': (await owner.createApiKey()).key };
    });

    it.each([
      ['a bearer token', () => owner.auth],
      ['an api-key header, which shared caches do not take for a credential', () => apiKey],
    ])('is no-store on every answer to a request with %s', async (_label, auth) => {
      const answers = [
        await http().get('/v1/me').set(auth()).expect(200),
        await http().get('/v1/wallet-pass').set(auth()).expect(200),
        await http().get(`/v1/wallet-pass/${slug}`).set(auth()).expect(404),
        await http().get('/v1/wallet-pass/bad%20id').set(auth()).expect(400),
        await http().get('/v1/me').set(auth()).set('x-workspace-id', 'nope').expect(403),
        await http().post('/v1/wallet-pass').set(auth()).send({}).expect(400),
      ];
      for (const answer of answers) {
        expect({ status: answer.status, cacheControl: answer.headers['cache-control'] }).toEqual({
          status: answer.status,
          cacheControl: 'no-store',
        });
      }
    });

    it('is no-store on a server error', async () => {
      const list = jest
        .spyOn(testApp.app.get(PassesService), 'list')
        .mockRejectedValueOnce(new Error('boom'));
      try {
        const answer = await http().get('/v1/wallet-pass').set(apiKey).expect(500);
        expect(answer.headers['cache-control']).toBe('no-store');
      } finally {
        list.mockRestore();
      }
    });

    it('is no-store on refused credentials too', async () => {
      const refusals = [
        await http().get('/v1/wallet-pass').expect(401),
        await http().get('/v1/wallet-pass').set('api-key', 'not-a-key').expect(403),
        await http().get('/v1/wallet-pass').set('Authorization', 'Bearer nope').expect(401),
      ];
      for (const answer of refusals) expect(answer.headers['cache-control']).toBe('no-store');
    });

    it.each([
      ['health', '/health', 200],
      ['the OpenAPI JSON', '/docs-json', 200],
      ['the PassKit web service', '/passkit/v1/passes/pass.x/no-such-pass', 401],
      ['an unknown route', '/v1/no-such-route', 404],
    ])('leaves %s as it was, credentials or not', async (_label, route, status) => {
      for (const auth of [{}, owner.auth, apiKey]) {
        const response = await http().get(route).set(auth).expect(status);
        expect(response.headers['cache-control']).toBeUndefined();
      }
    });
  });

  it("sends helmet's own headers byte for byte, in helmet's order (kept from start)", async () => {
    const bare = express();
    bare.disable('x-powered-by');
    bare.use(helmet(helmetOptions(API_POLICY)));
    bare.get('/health', (_request, response) => {
      response.end();
    });
    // The header lines as received, in order and spelled as sent (superagent keeps Node's
    // message as `res`, which its types do not declare).
    const rawHeaders = (response: Response) =>
      (response as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
    const fromHelmet = rawHeaders(await request(bare).get('/health').expect(200));
    const pairs = (raw: string[]) =>
      raw.flatMap((value, index) => (index % 2 === 0 ? [`${value}: ${raw[index + 1]}`] : []));
    const helmetPairs = pairs(fromHelmet).filter(
      (line) => !/^(Date|Connection|Keep-Alive|Content-Length|Transfer-Encoding):/i.test(line),
    );
    expect(helmetPairs.length).toBeGreaterThan(10);
    const names = new Set(helmetPairs.map((line) => line.split(':')[0]));
    for (const path of ['/health', '/v1/me']) {
      const ours = rawHeaders(await http().get(path).set(owner.auth));
      expect(pairs(ours).filter((line) => names.has(line.split(':')[0]))).toEqual(helmetPairs);
    }
  });

  it("gives the holder page a policy its own markup satisfies: its style's hash, its own images", async () => {
    const response = await http().get(`/p/${slug}`).expect(200);
    expectHelmetHeaders(response);
    const policy = response.headers['content-security-policy'];
    const html = response.text;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(style).toContain('#1A2B3C');
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(policy).toContain(`style-src 'sha256-${hash}'`);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('script-src');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("img-src 'self';");
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/ style=/);
    const logoUrl = /<img class="logo" src="([^"]+)"/.exec(html)?.[1];
    expect(logoUrl).toMatch(new RegExp(`^/p/${slug}/images/[A-Za-z0-9_-]+$`));

    // The logo itself: a PNG from the page's origin, kept by browsers (an upload never changes).
    const logo = await http()
      .get(logoUrl ?? '')
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    expectHelmetHeaders(logo);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((logo.body as Buffer).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    await http()
      .get(logoUrl ?? '')
      .set('If-None-Match', logo.headers.etag)
      .expect(304);
  });

  it("serves only the page's images of a published pass through the image route", async () => {
    const key = (name: string) =>
      images.find((info) => info.fileName === name)?.uploadKey ?? 'missing';
    await http()
      .get(`/p/${slug}/images/${key('strip.png')}`)
      .expect(200);
    // The icon is in the package, not on the page; another pass's or no upload: not found.
    await http()
      .get(`/p/${slug}/images/${key('icon.png')}`)
      .expect(404);
    const other = await owner.upload(makePng({ width: 2, height: 2 }), 'logo.png');
    await http().get(`/p/${slug}/images/${other}`).expect(404);
    await http()
      .get(`/p/no-such-pass/images/${key('logo.png')}`)
      .expect(404);
    await http().get(`/p/${slug}/images/bad.key`).expect(400);
  });

  it('gives Swagger UI scripts from itself only, and inline styles', async () => {
    const response = await http().get('/docs').redirects(1).expect(200);
    expectHelmetHeaders(response);
    const policy = response.headers['content-security-policy'];
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain(`connect-src 'self' ${testApp.config.publicBaseUrl}`);
    const init = await http().get('/docs/swagger-ui-init.js').expect(200);
    expect(init.headers['content-security-policy']).toBe(policy);
  });

  it('answers no cross-origin request by default (CORS off)', async () => {
    const preflight = await http()
      .options('/v1/wallet-pass')
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
    const get = await http().get('/v1/me').set(owner.auth).set('Origin', ALLOWED).expect(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS', () => {
  describe('with a list of origins', () => {
    let testApp: TestApp;
    let owner: OwnerSession;

    beforeAll(async () => {
      testApp = await startTestApp({ CORS_ORIGINS: `${ALLOWED},http://localhost:5173` });
      owner = await OwnerSession.start(testApp.server);
    });
    afterAll(() => testApp.close());

    const preflight = (origin: string) =>
      request(testApp.server)
        .options('/v1/wallet-pass/notifications')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type,x-workspace-id');

    it('lets a listed origin through the preflight, before any credentials', async () => {
      const response = await preflight(ALLOWED).expect(204);
      expect(response.headers).toMatchObject({
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE',
        'access-control-allow-headers': 'Authorization,api-key,Content-Type,x-workspace-id',
        'access-control-max-age': '600',
        vary: expect.stringContaining('Origin'),
      });
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expectHelmetHeaders(response);
      expect(
        (await preflight('http://localhost:5173')).headers['access-control-allow-origin'],
      ).toBe('http://localhost:5173');
    });

    it('lets the listed origin read answers and the headers clients need', async () => {
      const response = await request(testApp.server)
        .get('/v1/me')
        .set(owner.auth)
        .set('Origin', ALLOWED)
        .expect(200);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(response.headers['access-control-expose-headers']).toContain('x-request-id');
      expect(response.headers['access-control-expose-headers']).toContain('Retry-After');
    });

    it.each([
      ['another origin', OTHER],
      ['a listed host on another scheme', 'http://app.example.com'],
      ['a listed origin with another port', 'https://app.example.com:8443'],
      ['a suffix of a listed origin', 'https://app.example.com.evil.example.net'],
    ])('gives %s no Access-Control-Allow-Origin', async (_label, origin) => {
      const response = await preflight(origin);
      expect(response.status).toBeLessThan(500);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const get = await request(testApp.server).get('/v1/me').set(owner.auth).set('Origin', origin);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('with *', () => {
    let testApp: TestApp;

    beforeAll(async () => {
      testApp = await startTestApp({ CORS_ORIGINS: '*' });
    });
    afterAll(() => testApp.close());

    it('lets any origin call, without credentials', async () => {
      const response = await request(testApp.server)
        .options('/v1/wallet-pass')
        .set('Origin', OTHER)
        .set('Access-Control-Request-Method', 'GET')
        .expect(204);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });
});
