import request from 'supertest';
import { DataSource } from 'typeorm';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('The Error body', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  it('answers an unknown route with 404 NOT_FOUND, txId echoed as x-request-id', async () => {
    const response = await http().get('/v1/no-such-thing').set(owner.auth).expect(404);
    expect(response.body).toEqual({
      txId: response.headers['x-request-id'],
      timestamp: expect.stringMatching(ISO_8601),
      errorCode: 'NOT_FOUND',
      errorMessage: expect.any(String),
    });
  });

  it('gives time-ordered txIds', async () => {
    const first = await http().get('/v1/nothing-1').expect(404);
    const second = await http().get('/v1/nothing-2').expect(404);
    expect(first.body.txId < second.body.txId).toBe(true);
  });

  it('answers malformed JSON with 400 INVALID_INPUT', async () => {
    const response = await http()
      .post('/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send('{"email": "a@b.c", "password": ')
      .expect(400);
    expect(response.body).toMatchObject({
      errorCode: 'INVALID_INPUT',
      errorMessage: 'Request body is not valid JSON',
    });
    expect(response.body.txId).toBe(response.headers['x-request-id']);
  });

  it('reports validation failures per field path, without errorMessage', async () => {
    const response = await http()
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({ email: 'not-an-email', password: '', role: 'king', workspaceIds: ['ok', 'bad id!'] })
      .expect(400);
    expect(response.body.errorCode).toBe('INVALID_INPUT');
    expect(response.body).not.toHaveProperty('errorMessage');
    expect(response.body.context).toEqual({
      email: 'must be an email',
      password: 'must not be empty',
      role: expect.stringContaining('must be one of the following values'),
      workspaceIds: expect.stringContaining('must match'),
    });
  });

  it('rejects unknown body fields', async () => {
    const response = await http()
      .post('/v1/workspaces')
      .set(owner.auth)
      .send({ name: 'Typo test', nmae: 'typo' })
      .expect(400);
    expect(response.body.context).toEqual({ nmae: 'is not a known field' });
  });

  it('answers a 404 for a record with context.id', async () => {
    const response = await http()
      .get('/v1/accounts/00000000-0000-7000-8000-000000000000')
      .set(owner.auth)
      .expect(404);
    expect(response.body).toMatchObject({
      errorCode: 'NOT_FOUND',
      errorMessage: 'Account not found',
      context: { id: '00000000-0000-7000-8000-000000000000' },
    });
  });

  it('answers a malformed path id with 400 and context.id', async () => {
    const response = await http().get('/v1/accounts/bad%20id').set(owner.auth).expect(400);
    expect(response.body.context).toEqual({ id: expect.stringContaining('must match') });
  });

  it('answers a body that is not JSON with 415', async () => {
    const response = await http()
      .post('/v1/workspaces')
      .set(owner.auth)
      .set('Content-Type', 'text/plain')
      .send('name=x')
      .expect(415);
    expect(response.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a body over the size limit with 413', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(testApp.config.upload.maxBytes * 2) });
    const response = await http()
      .post('/v1/workspaces')
      .set(owner.auth)
      .set('Content-Type', 'application/json')
      .send(huge)
      .expect(413);
    expect(response.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers with 503 UNAVAILABLE and no internals when the database is gone', async () => {
    const dataSource = testApp.app.get(DataSource);
    const probe = await startTestApp();
    try {
      await probe.app.get(DataSource).destroy();
      const health = await request(probe.server).get('/health').expect(503);
      expect(health.body).toMatchObject({ errorCode: 'UNAVAILABLE' });
      expect(health.headers['retry-after']).toBe('5');

      const login = await request(probe.server)
        .post('/v1/auth/login')
        .send({ email: 'owner@test.example', password: 'whatever-password' })
        .expect(503);
      expect(JSON.stringify(login.body)).not.toMatch(/select|sqlite|mysql|stack/i);
    } finally {
      await probe.close().catch(() => undefined);
    }
    expect(dataSource.isInitialized).toBe(true);
  });
});

describe('Operations endpoints', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('reports health with a database ping', async () => {
    const response = await request(testApp.server).get('/health').expect(200);
    expect(response.body).toEqual({ status: 'ok', database: 'up' });
  });

  it('exposes Prometheus metrics that count requests by route', async () => {
    await request(testApp.server).get('/health').expect(200);
    const response = await request(testApp.server).get('/metrics').expect(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.text).toMatch(
      /http_requests_total\{method="GET",route="\/health",status="200"\} \d+/,
    );
    expect(response.text).toContain('process_cpu_seconds_total');
  });

  it('serves Swagger UI and an OpenAPI document with both schemes and the Error body', async () => {
    await request(testApp.server)
      .get('/docs')
      .expect((res) => {
        expect([200, 301]).toContain(res.status);
      });
    const response = await request(testApp.server).get('/docs-json').expect(200);
    const document = response.body;
    expect(document.info.version).toBe('1.0.0');
    expect(document.components.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      'api-key': { type: 'apiKey', in: 'header', name: 'api-key' },
    });
    expect(Object.keys(document.components.schemas.ErrorBody.properties)).toEqual([
      'txId',
      'timestamp',
      'errorCode',
      'errorMessage',
      'context',
    ]);
    expect(document.paths['/v1/me'].get.security).toEqual([{ bearer: [] }, { 'api-key': [] }]);
    expect(document.paths['/health']).toBeDefined();
  });
});
