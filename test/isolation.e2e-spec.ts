import request from 'supertest';
import {
  errorBodyProblem,
  fillPath,
  listOperations,
  loadOpenApi,
  type Operation,
} from './support/openapi';
import { makePng } from './support/png';
import { OwnerSession, type Member } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

/** The records of workspace A the matrix asks for from elsewhere. */
interface WorkspaceARecords {
  workspaceId: string;
  passId: string;
  locationId: string;
  notificationId: string;
  campaignId: string;
  webhookId: string;
  accountId: string;
  apiKeyId: string;
  ownerUserId: string;
  uploadKeys: string[];
}

type Headers = Record<string, string>;

const WEBHOOK_URL = 'http://127.0.0.1:9/isolation';

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** A valid body for each operation that takes one, so that only the caller decides the answer. */
function validBody(operation: Operation, a: WorkspaceARecords): unknown {
  const key = `${operation.method.toUpperCase()} ${operation.path}`;
  const bodies: Record<string, unknown> = {
    'POST /v1/accounts': { name: 'Isolation account' },
    'POST /v1/workspaces': { name: 'Isolation workspace' },
    'POST /v1/organisation/members': {
      email: 'isolation@test.example',
      password: 'isolation-password',
      role: 'member',
      workspaceIds: [a.workspaceId],
    },
    'POST /v1/api-keys': { name: 'isolation key' },
    'POST /v1/uploads/storage': {
      file: makePng().toString('base64'),
      fileName: 'logo.png',
      bucket: 'pass-assets',
    },
    'POST /v1/wallet-pass': passBody('Isolation pass'),
    'PATCH /v1/wallet-pass/{id}': passBody('Renamed by another workspace'),
    'POST /v1/wallet-pass/{id}/holders': { externalId: 'isolation' },
    'PATCH /v1/wallet-pass/{id}/holders/{holderId}': { barcodeText: 'Changed elsewhere' },
    'POST /v1/wallet-pass/{id}/holders/import': [{ externalId: 'isolation' }],
    'POST /v1/wallet-pass/{id}/holders/bulk': { audience: { tag: 'gold' }, addTags: ['isolation'] },
    'POST /v1/wallet-pass/{id}/holders/bundle': {
      holderIds: ['019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b', '019a2b3c-2223-7f60-8a1b-2c3d4e5f6a7b'],
    },
    'POST /v1/wallet-pass/{id}/segments': { name: 'Isolation segment', audience: { tag: 'gold' } },
    'PATCH /v1/wallet-pass/{id}/segments/{segmentId}': { name: 'Renamed elsewhere' },
    'POST /v1/wallet-pass/{id}/audience': { audience: { tag: 'gold' } },
    'POST /v1/wallet-pass/{id}/automations': {
      name: 'Isolation automation',
      trigger: { on: 'holder.created' },
      actions: [{ addTags: ['isolation'] }],
    },
    'PATCH /v1/wallet-pass/{id}/automations/{automationId}': { name: 'Renamed elsewhere' },
    'POST /v1/wallet-pass-location': locationBody(a.passId),
    'PUT /v1/wallet-pass-location/{locationId}': locationBody(null),
    'POST /v1/promo-campaign': { name: 'Isolation campaign' },
    'PATCH /v1/promo-campaign/{id}': { name: 'Renamed by another workspace' },
    'POST /v1/promo-campaign/{id}/video-performance': [
      { platform: 'SocialA', videoURL: 'https://video.example/1', creatorHandle: '@someone' },
    ],
    'POST /v1/wallet-pass/notifications': {
      passSerialNumber: a.passId,
      notificationName: 'Isolation notification',
      status: 'Draft',
    },
    'PATCH /v1/wallet-pass/notifications/{id}': { notificationName: 'Renamed elsewhere' },
    'POST /v1/webhooks': { url: WEBHOOK_URL, events: ['holder.created'] },
    'PATCH /v1/webhooks/{id}': { description: 'Changed elsewhere' },
  };
  return bodies[key];
}

function passBody(passName: string) {
  return {
    passName,
    passMetadata: { description: 'Isolation card', organizationName: 'Brand Ltd' },
  };
}

function locationBody(passId: string | null) {
  return {
    name: 'Isolation store',
    latitude: 48.8566,
    longitude: 2.3522,
    relevantText: 'Near the store',
    ...(passId === null ? {} : { walletPass: { id: passId } }),
  };
}

/** The record of workspace A each path parameter names. */
function recordIdFor(operation: Operation, a: WorkspaceARecords): string {
  const path = operation.path;
  if (path.startsWith('/v1/accounts/')) return a.accountId;
  if (path.startsWith('/v1/api-keys/')) return a.apiKeyId;
  if (path.startsWith('/v1/organisation/members/')) return a.ownerUserId;
  if (path.startsWith('/v1/wallet-pass/notifications/')) return a.notificationId;
  if (path.startsWith('/v1/wallet-pass-location/')) return a.locationId;
  if (path.startsWith('/v1/wallet-pass/')) return a.passId;
  if (path.startsWith('/v1/promo-campaign/')) return a.campaignId;
  if (path.startsWith('/v1/webhooks/')) return a.webhookId;
  throw new Error(`No record of workspace A for ${path}`);
}

describe('Workspace isolation matrix', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let operations: Operation[];
  let a: WorkspaceARecords;
  let memberB: Member;
  let memberBKey: string;
  let revokedKey: string;

  beforeAll(async () => {
    // The credentials matrix sends two refused keys per route from one IP on purpose.
    testApp = await startTestApp({
      RATE_LIMIT_PER_MINUTE: '100000',
      AUTH_FAILURES_PER_IP: '100000',
      // A webhook of workspace A to a local address (nothing listens: deliveries just fail).
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    owner = await OwnerSession.start(testApp.server);
    operations = listOperations(await loadOpenApi(testApp.server)).filter(
      (operation) => operation.authenticated,
    );
    const http = () => request(testApp.server);
    const workspaceId = owner.defaultWorkspaceId;

    const uploadKeys = [
      await owner.upload(makePng({ width: 160, height: 50 }), 'logo.png'),
      await owner.upload(makePng({ width: 29, height: 29 }), 'icon.png'),
      await owner.upload(makePng({ width: 375, height: 123 }), 'strip.png'),
    ];
    const pass = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        ...passBody('Workspace A card'),
        uploadInfoList: ['logo.png', 'icon.png', 'strip.png'].map((fileName, index) => ({
          fileName,
          uploadKey: uploadKeys[index],
        })),
      })
      .expect(201);
    const passId = (pass.body as { id: string }).id;
    const location = await http()
      .post('/v1/wallet-pass-location')
      .set(owner.auth)
      .send(locationBody(passId))
      .expect(201);
    const notification = await http()
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: passId, notificationName: 'A draft', status: 'Draft' })
      .expect(201);
    const campaign = await http()
      .post('/v1/promo-campaign')
      .set(owner.auth)
      .send({ name: 'Workspace A campaign' })
      .expect(201);
    const webhook = await http()
      .post('/v1/webhooks')
      .set(owner.auth)
      .send({ url: WEBHOOK_URL, events: ['holder.created'], description: 'Workspace A hook' })
      .expect(201);
    const account = await http()
      .post('/v1/accounts')
      .set(owner.auth)
      .send({ name: 'Workspace A account' })
      .expect(201);
    const me = await http().get('/v1/me').set(owner.auth).expect(200);
    const apiKey = await owner.createApiKey();
    a = {
      workspaceId,
      passId,
      locationId: (location.body as { id: string }).id,
      notificationId: (notification.body as { id: string }).id,
      campaignId: (campaign.body as { id: string }).id,
      webhookId: (webhook.body as { id: string }).id,
      accountId: (account.body as { id: string }).id,
      apiKeyId: apiKey.id,
      ownerUserId: (me.body as { user: { id: string } }).user.id,
      uploadKeys,
    };

    const workspaceB = await owner.createWorkspace('Workspace B');
    memberB = await owner.addMember('member', [workspaceB]);
    memberBKey = (await owner.createApiKey(memberB.token, 'B key')).key;
    const revoked = await owner.createApiKey(memberB.token, 'revoked key');
    await http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(memberB.token)).expect(204);
    revokedKey = revoked.key;
  });
  afterAll(() => testApp.close());

  async function call(operation: Operation, headers: Headers, id?: string): Promise<Answer> {
    const url = fillPath(operation.path, () => id ?? recordIdFor(operation, a));
    let pending = request(testApp.server)[operation.method](url).set(headers);
    const body = validBody(operation, a);
    if (body !== undefined) pending = pending.send(body as object);
    const response = await pending;
    return { status: response.status, body: response.body, headers: response.headers };
  }

  function describeAnswer(answer: Answer) {
    const body = answer.body as { errorCode?: string; context?: Record<string, unknown> };
    return {
      status: answer.status,
      errorCode: body.errorCode,
      bodyProblem: errorBodyProblem(answer.body, answer.headers['x-request-id']),
    };
  }

  it('covers every authenticated operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it('refuses missing, malformed and revoked credentials and foreign workspaces on every route', async () => {
    const columns: { name: string; headers: () => Headers; status: number; code: string }[] = [
      { name: 'no credentials', headers: () => ({}), status: 401, code: 'UNAUTHORIZED' },
      {
        name: 'malformed api-key',
        headers: () => ({ 'api-key': 'not-a-key!' }),
        status: 403,
        code: 'FORBIDDEN',
      },
      {
        name: 'revoked api-key',
        headers: () => ({ 'api-key': revokedKey }),
        status: 403,
        code: 'FORBIDDEN',
      },
      {
        name: 'member of B naming A (bearer)',
        headers: () => ({ ...bearer(memberB.token), 'x-workspace-id': a.workspaceId }),
        status: 403,
        code: 'FORBIDDEN',
      },
      {
        name: 'member of B naming A (api-key)',
        headers: () => ({ 'api-key': memberBKey, 'x-workspace-id': a.workspaceId }),
        status: 403,
        code: 'FORBIDDEN',
      },
    ];
    const failures: unknown[] = [];
    let cells = 0;
    for (const operation of operations) {
      for (const column of columns) {
        cells += 1;
        const answer = await call(operation, column.headers());
        const seen = describeAnswer(answer);
        const expected = { status: column.status, errorCode: column.code, bodyProblem: undefined };
        if (JSON.stringify(seen) !== JSON.stringify(expected)) {
          failures.push({
            route: `${operation.method} ${operation.path}`,
            column: column.name,
            seen,
          });
        }
      }
    }
    console.log(
      `isolation: credentials matrix ${operations.length} routes × ${columns.length} = ${cells} cells`,
    );
    expect(failures).toEqual([]);
  });

  it("answers a caller of workspace B asking for A's records by id with 404, never the record", async () => {
    const byId = operations.filter((operation) => operation.pathParams.length > 0);
    const callers: { name: string; headers: () => Headers }[] = [
      { name: 'member of B (bearer)', headers: () => bearer(memberB.token) },
      { name: 'member of B (api-key)', headers: () => ({ 'api-key': memberBKey }) },
    ];
    const failures: unknown[] = [];
    let cells = 0;
    for (const operation of byId) {
      const id = recordIdFor(operation, a);
      // Members are the organisation's, not a workspace's: a plain member may not manage them.
      const expected = operation.path.startsWith('/v1/organisation/members/')
        ? { status: 403, errorCode: 'FORBIDDEN', bodyProblem: undefined }
        : { status: 404, errorCode: 'NOT_FOUND', bodyProblem: undefined };
      for (const caller of callers) {
        cells += 1;
        const answer = await call(operation, caller.headers(), id);
        const seen = describeAnswer(answer);
        const context = (answer.body as { context?: Record<string, unknown> }).context;
        const leaked = JSON.stringify(answer.body).includes('Workspace A');
        if (
          JSON.stringify(seen) !== JSON.stringify(expected) ||
          leaked ||
          (expected.status === 404 && context?.id !== id)
        ) {
          failures.push({
            route: `${operation.method} ${operation.path}`,
            caller: caller.name,
            seen,
            context,
            leaked,
          });
        }
      }
    }
    console.log(
      `isolation: by-id matrix ${byId.length} routes × ${callers.length} = ${cells} cells`,
    );
    expect(failures).toEqual([]);

    // Nothing of A was changed or deleted by those calls.
    const http = () => request(testApp.server);
    const pass = await http().get(`/v1/wallet-pass/${a.passId}`).set(owner.auth).expect(200);
    expect((pass.body as { passName: string }).passName).toBe('Workspace A card');
    await http().get(`/v1/wallet-pass-location/${a.locationId}`).set(owner.auth).expect(200);
    const notification = await http()
      .get(`/v1/wallet-pass/notifications/${a.notificationId}`)
      .set(owner.auth)
      .expect(200);
    expect(notification.body).toMatchObject({ notificationName: 'A draft', status: 'Draft' });
    const campaign = await http()
      .get(`/v1/promo-campaign/${a.campaignId}`)
      .set(owner.auth)
      .expect(200);
    expect((campaign.body as { name: string }).name).toBe('Workspace A campaign');
    const webhook = await http().get(`/v1/webhooks/${a.webhookId}`).set(owner.auth).expect(200);
    expect(webhook.body).toMatchObject({ description: 'Workspace A hook', enabled: true });
    await http().get(`/v1/accounts/${a.accountId}`).set(owner.auth).expect(200);
    const keys = await http().get('/v1/api-keys').set(owner.auth).expect(200);
    expect(JSON.stringify(keys.body)).toContain(a.apiKeyId);
  });

  it("never lists A's records to a caller of workspace B, even when asked for them by id", async () => {
    const lists = operations.filter(
      (operation) => operation.method === 'get' && operation.pathParams.length === 0,
    );
    const forbidden = [
      a.workspaceId,
      a.passId,
      a.locationId,
      a.notificationId,
      a.campaignId,
      a.webhookId,
      a.accountId,
      a.apiKeyId,
      ...a.uploadKeys,
    ];
    const filters: Record<string, string[]> = {
      '/v1/wallet-pass': [
        '',
        `?ids=${a.passId}`,
        `?id=${a.passId}`,
        '?keyword=Workspace',
        '?includeAssets=true',
      ],
      '/v1/wallet-pass-location': ['', `?passSerialNumbers=${a.passId}`, `?ids=${a.locationId}`],
      '/v1/promo-campaign': ['', `?ids=${a.campaignId}`, '?keyword=Workspace'],
    };
    const failures: unknown[] = [];
    let cells = 0;
    for (const operation of lists) {
      for (const query of filters[operation.path] ?? ['']) {
        for (const headers of [bearer(memberB.token), { 'api-key': memberBKey }]) {
          cells += 1;
          const response = await request(testApp.server)
            .get(`${operation.path}${query}`)
            .set(headers);
          const text = JSON.stringify(response.body);
          const leaks = forbidden.filter((id) => text.includes(id));
          const problem =
            response.status >= 400
              ? errorBodyProblem(response.body, response.headers['x-request-id'])
              : undefined;
          if (leaks.length > 0 || response.status >= 500 || problem !== undefined) {
            failures.push({ route: `${operation.path}${query}`, status: response.status, leaks });
          }
        }
      }
    }
    console.log(`isolation: list matrix ${lists.length} routes, ${cells} calls, 0 leaks expected`);
    expect(failures).toEqual([]);
  });

  it("refuses to use A's records in B's writes (pass, upload, account references)", async () => {
    const http = () => request(testApp.server);
    const asB = bearer(memberB.token);
    const attempts = [
      http().post('/v1/wallet-pass-location').set(asB).send(locationBody(a.passId)),
      http()
        .post('/v1/wallet-pass/notifications')
        .set(asB)
        .send({ passSerialNumber: a.passId, notificationName: 'Cross', status: 'Draft' }),
      http()
        .post('/v1/wallet-pass')
        .set(asB)
        .send({
          ...passBody('Cross uploads'),
          uploadInfoList: [{ fileName: 'logo.png', uploadKey: a.uploadKeys[0] }],
        }),
      http()
        .post('/v1/wallet-pass')
        .set(asB)
        .send({ ...passBody('Cross account'), account: { id: a.accountId } }),
    ];
    const answers = await Promise.all(attempts);
    for (const answer of answers) {
      expect({
        status: answer.status,
        problem: errorBodyProblem(answer.body, answer.headers['x-request-id']),
      }).toEqual({ status: 404, problem: undefined });
    }
  });
});
