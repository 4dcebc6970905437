import { Script } from 'node:vm';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import type { paths } from './contract/api-types';
import {
  API_TYPES_FILE,
  generateApiTypes,
  generateOpenApiFile,
  lintDocument,
  OPENAPI_FILE,
  readApiTypes,
  readOpenApiFile,
  writeApiTypes,
  writeOpenApiFile,
} from './contract/document';
import { makePng } from './support/png';
import { OWNER_EMAIL, OWNER_PASSWORD, startTestApp, type TestApp } from './support/test-app';

/**
 * The OpenAPI document as a contract: it passes `redocly lint` (redocly.yaml), the committed
 * document (docs/openapi.json) and the types generated from it (test/contract/api-types.ts) are
 * up to date, and a client typed with them drives a whole scenario against the app listening
 * on a real port. `CONTRACT_TYPES_WRITE=1` (npm run contract:types) rewrites the document and
 * the types instead of comparing.
 */
describe('OpenAPI contract', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let document: unknown;

  beforeAll(async () => {
    testApp = await startTestApp();
    await testApp.app.listen(0, '127.0.0.1');
    const { port } = testApp.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    const response = await fetch(`${baseUrl}/docs-json`);
    expect(response.status).toBe(200);
    document = await response.json();
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('passes redocly lint without errors', async () => {
    const problems = await lintDocument(document);
    const errors = problems
      .filter((problem) => problem.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(errors).toEqual([]);
  });

  it('serves a page script Swagger UI can run: no "$`", "$\'" or "$&" in the document', async () => {
    // The page script is made with String.replace, which reads those as patterns (not text).
    expect(JSON.stringify(document).match(/\$[`'&]/g) ?? []).toEqual([]);
    const script = await (await fetch(`${baseUrl}/docs/swagger-ui-init.js`)).text();
    // Compiled only, never run: a SyntaxError is what a broken replacement leaves.
    expect(() => new Script(script)).not.toThrow();
  });

  it('has committed types up to date with the document (npm run contract:types)', async () => {
    const expected = await generateApiTypes(document);
    if (process.env.CONTRACT_TYPES_WRITE === '1') {
      await writeApiTypes(expected);
      console.log(`Wrote ${API_TYPES_FILE}`);
      return;
    }
    const committed = await readApiTypes();
    if (committed !== expected) {
      throw new Error(
        `${API_TYPES_FILE} is not up to date with the OpenAPI document: run npm run contract:types`,
      );
    }
  });

  it('has the committed OpenAPI document up to date (npm run contract:types)', async () => {
    const expected = await generateOpenApiFile(document);
    if (process.env.CONTRACT_TYPES_WRITE === '1') {
      await writeOpenApiFile(expected);
      console.log(`Wrote ${OPENAPI_FILE}`);
      return;
    }
    if ((await readOpenApiFile()) !== expected) {
      throw new Error(
        `${OPENAPI_FILE} is not the document the app serves: run npm run contract:types`,
      );
    }
  });

  it('shows an example of every documented error of the holder routes', () => {
    type Content = { example?: unknown; examples?: unknown };
    type Responses = Record<string, { content?: Record<string, Content> }>;
    const paths = (document as { paths: Record<string, Record<string, { responses: Responses }>> })
      .paths;
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(paths)) {
      if (!path.includes('/holders')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          // 401, 403 and 429 are documented once for every route, not per route.
          if (!/^4\d\d$/.test(status) || ['401', '403', '429'].includes(status)) continue;
          const json = response.content?.['application/json'];
          if (json?.example === undefined && json?.examples === undefined) {
            missing.push(`${method.toUpperCase()} ${path} ${status}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('drives a whole scenario through a client typed with the generated types', async () => {
    const client = createClient<paths>({ baseUrl });

    // Sign in, then work with an API key, as an integration would.
    const login = await client.POST('/v1/auth/login', {
      body: { email: OWNER_EMAIL, password: OWNER_PASSWORD },
    });
    expect(login.response.status).toBe(200);
    const token = login.data?.accessToken ?? '';
    expect(token).not.toBe('');

    const apiKey = await client.POST('/v1/api-keys', {
      headers: { Authorization: `Bearer ${token}` },
      body: { name: 'contract test' },
    });
    expect(apiKey.response.status).toBe(201);
    expect(apiKey.data?.name).toBe('contract test');
    const key = apiKey.data?.key ?? '';
    expect(key).toMatch(/^wpk\./);
    const auth = { 'api-key': key };

    // Multipart upload through fetch's FormData: the body names the file part.
    const uploadKeys: Record<string, string> = {};
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      const upload = await client.POST('/v1/uploads/storage', {
        headers: auth,
        body: { file: fileName, bucket: 'pass-assets' },
        bodySerializer: (body) => {
          const form = new FormData();
          form.append('bucket', body.bucket ?? 'pass-assets');
          const png = new Uint8Array(makePng({ width: 4, height: 4 }));
          form.append('file', new Blob([png], { type: 'image/png' }), body.file);
          return form;
        },
      });
      expect(upload.response.status).toBe(201);
      expect(upload.data).toMatchObject({ fileName, bucket: 'pass-assets' });
      uploadKeys[fileName] = upload.data?.uploadKey ?? '';
    }
    const uploadInfoList = Object.entries(uploadKeys).map(([fileName, uploadKey]) => ({
      fileName,
      uploadKey,
    }));

    const passMetadata = { description: 'Contract card', organizationName: 'Contract Ltd' };
    const created = await client.POST('/v1/wallet-pass', {
      headers: auth,
      body: { passName: 'Contract card', notificationHeader: 'News', passMetadata },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ passName: 'Contract card', status: 'Draft' });
    const passId = created.data?.id ?? '';

    const published = await client.PATCH('/v1/wallet-pass/{id}', {
      headers: auth,
      params: { path: { id: passId } },
      body: { passName: 'Contract card', passMetadata, status: 'Published', uploadInfoList },
    });
    expect(published.response.status).toBe(200);
    expect(published.data?.status).toBe('Published');
    expect(published.data?.uploadInfoList).toEqual(uploadInfoList);

    const location = await client.POST('/v1/wallet-pass-location', {
      headers: auth,
      body: {
        name: 'Flagship store',
        latitude: 48.8566,
        longitude: 2.3522,
        relevantText: 'Show your card at the till',
        enabled: true,
        walletPass: { id: passId },
      },
    });
    expect(location.response.status).toBe(201);
    expect(location.data).toMatchObject({ name: 'Flagship store', enabled: true });

    const list = await client.GET('/v1/wallet-pass', {
      headers: auth,
      params: { query: { keyword: 'contract', status: ['Published'], limit: 10 } },
    });
    expect(list.response.status).toBe(200);
    expect(list.data?.items.map((pass) => pass.id)).toEqual([passId]);

    const notification = await client.POST('/v1/wallet-pass/notifications', {
      headers: auth,
      body: {
        passSerialNumber: passId,
        notificationName: 'Weekend',
        notificationMessage: 'Double points this weekend!',
        status: 'Draft',
      },
    });
    expect(notification.response.status).toBe(201);
    expect(notification.data).toMatchObject({ status: 'Draft', notificationName: 'Weekend' });

    const read = await client.GET('/v1/wallet-pass/notifications/{id}', {
      headers: auth,
      params: { path: { id: notification.data?.id ?? '' }, query: { includeStats: true } },
    });
    expect(read.response.status).toBe(200);
    expect(read.data).toMatchObject({ id: notification.data?.id, status: 'Draft' });
    expect(read.data?.notificationStats).toBeDefined();

    const campaign = await client.POST('/v1/promo-campaign', {
      headers: auth,
      body: { name: 'Spring push', platforms: ['SocialA'], targetViews: 1000 },
    });
    expect(campaign.response.status).toBe(201);
    const campaignId = campaign.data?.id ?? '';
    const campaignRead = await client.GET('/v1/promo-campaign/{id}', {
      headers: auth,
      params: { path: { id: campaignId } },
    });
    expect(campaignRead.response.status).toBe(200);
    expect(campaignRead.data).toMatchObject({
      id: campaignId,
      name: 'Spring push',
      platforms: ['SocialA'],
      targetViews: 1000,
      status: 'NotStarted',
    });
  });
});
