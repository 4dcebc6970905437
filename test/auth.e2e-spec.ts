import { sign } from 'jsonwebtoken';
import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { OwnerSession } from './support/session';
import {
  bearer,
  login,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  startTestApp,
  TEST_JWT_SECRET,
  type TestApp,
} from './support/test-app';

describe('Authentication', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  describe('sign-in', () => {
    it('issues a bearer token that expires as configured', async () => {
      const response = await http()
        .post('/v1/auth/login')
        .send({ email: OWNER_EMAIL.toUpperCase(), password: OWNER_PASSWORD })
        .expect(200);
      expect(response.body).toEqual({
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 3600,
      });
      await http().get('/v1/me').set(bearer(response.body.accessToken)).expect(200);
    });

    it('answers a wrong password and an unknown e-mail alike with 401', async () => {
      const wrong = await http()
        .post('/v1/auth/login')
        .send({ email: OWNER_EMAIL, password: 'not-the-password' })
        .expect(401);
      const unknown = await http()
        .post('/v1/auth/login')
        .send({ email: 'nobody@test.example', password: 'not-the-password' })
        .expect(401);
      expect(wrong.body.errorCode).toBe('UNAUTHORIZED');
      expect(unknown.body.errorMessage).toBe(wrong.body.errorMessage);
    });

    it('rejects a sign-in body with missing fields field by field', async () => {
      const response = await http().post('/v1/auth/login').send({}).expect(400);
      expect(response.body.errorCode).toBe('INVALID_INPUT');
      expect(response.body.errorMessage).toBeUndefined();
      expect(response.body.context).toEqual({
        email: 'must not be null',
        password: 'must not be null',
      });
    });
  });

  describe('bearer tokens', () => {
    it('describes the caller at /v1/me', async () => {
      const response = await http().get('/v1/me').set(owner.auth).expect(200);
      expect(response.body.user).toEqual({
        id: expect.any(String),
        email: OWNER_EMAIL,
        role: 'owner',
      });
      expect(response.body.workspaces).toEqual([
        { id: owner.defaultWorkspaceId, name: 'Default workspace', role: 'owner', isDefault: true },
      ]);
      expect(response.body.apiKeyId).toBeNull();
    });

    it('refuses an expired token', async () => {
      const me = await http().get('/v1/me').set(owner.auth).expect(200);
      const expired = sign({ sub: me.body.user.id }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        expiresIn: -10,
      });
      const response = await http().get('/v1/me').set(bearer(expired)).expect(401);
      expect(response.body).toMatchObject({
        errorCode: 'UNAUTHORIZED',
        errorMessage: 'Bearer token has expired',
      });
    });

    it('refuses alg "none" and foreign algorithms', async () => {
      const me = await http().get('/v1/me').set(owner.auth).expect(200);
      const claims = Buffer.from(
        JSON.stringify({ sub: me.body.user.id, exp: Math.floor(Date.now() / 1000) + 600 }),
      ).toString('base64url');
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      await http()
        .get('/v1/me')
        .set(bearer(`${header}.${claims}.`))
        .expect(401);

      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const rs256 = sign({ sub: me.body.user.id }, privateKey, {
        algorithm: 'RS256',
        expiresIn: 600,
      });
      await http().get('/v1/me').set(bearer(rs256)).expect(401);

      const hs512 = sign({ sub: me.body.user.id }, TEST_JWT_SECRET, {
        algorithm: 'HS512',
        expiresIn: 600,
      });
      await http().get('/v1/me').set(bearer(hs512)).expect(401);
    });

    it('refuses a token signed with another secret and a non-Bearer scheme', async () => {
      const forged = sign({ sub: 'someone' }, 'another-secret-that-is-long-enough-to-use', {
        expiresIn: 600,
      });
      await http().get('/v1/me').set(bearer(forged)).expect(401);
      const basic = await http()
        .get('/v1/me')
        .set('Authorization', 'Basic b3duZXI6cGFzcw==')
        .expect(401);
      expect(basic.body.errorCode).toBe('UNAUTHORIZED');
    });
  });

  describe('API keys', () => {
    it('shows a key once, never lists it, and authenticates with it', async () => {
      const created = await http()
        .post('/v1/api-keys')
        .set(owner.auth)
        .send({ name: 'CRM' })
        .expect(201);
      expect(created.body).toMatchObject({
        id: expect.any(String),
        name: 'CRM',
        key: expect.stringMatching(/^wpk\./),
      });

      const listed = await http().get('/v1/api-keys').set(owner.auth).expect(200);
      const entry = listed.body.find((key: { id: string }) => key.id === created.body.id);
      expect(entry).toMatchObject({ id: created.body.id, name: 'CRM' });
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key.split('.')[2]);
      expect(entry.key).toBeUndefined();

      const me = await http().get('/v1/me').set('api-key', created.body.key).expect(200);
      expect(me.body.user.email).toBe(OWNER_EMAIL);
      expect(me.body.apiKeyId).toBe(created.body.id);
    });

    it('answers a malformed or unknown key with 403', async () => {
      const malformed = await http().get('/v1/me').set('api-key', 'not-a-key').expect(403);
      expect(malformed.body.errorCode).toBe('FORBIDDEN');

      const { key } = await owner.createApiKey();
      const [, id] = key.split('.');
      const wrongSecret = `wpk.${id}.${'A'.repeat(43)}`;
      await http().get('/v1/me').set('api-key', wrongSecret).expect(403);
      const unknownId = `wpk.00000000-0000-7000-8000-000000000000.${key.split('.')[2]}`;
      await http().get('/v1/me').set('api-key', unknownId).expect(403);
    });

    it('stops a revoked key at once', async () => {
      const { id, key } = await owner.createApiKey();
      await http().get('/v1/me').set('api-key', key).expect(200);
      await http().delete(`/v1/api-keys/${id}`).set(owner.auth).expect(204);
      const response = await http().get('/v1/me').set('api-key', key).expect(403);
      expect(response.body.errorCode).toBe('FORBIDDEN');
      await http().delete(`/v1/api-keys/${id}`).set(owner.auth).expect(404);
    });

    it("does not let one user revoke another user's key", async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const { id, key } = await owner.createApiKey(member.token);
      const response = await http().delete(`/v1/api-keys/${id}`).set(owner.auth).expect(404);
      expect(response.body.context).toEqual({ id });
      await http().get('/v1/me').set('api-key', key).expect(200);
    });
  });

  describe('removing a member', () => {
    it('stops their keys (403) and tokens (401) at once, and they can no longer sign in', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const { key } = await owner.createApiKey(member.token);
      await http().get('/v1/me').set('api-key', key).expect(200);

      await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);

      expect((await http().get('/v1/me').set('api-key', key).expect(403)).body.errorCode).toBe(
        'FORBIDDEN',
      );
      expect(
        (await http().get('/v1/me').set(bearer(member.token)).expect(401)).body.errorCode,
      ).toBe('UNAUTHORIZED');
      await http()
        .post('/v1/auth/login')
        .send({ email: member.email, password: member.password })
        .expect(401);
    });

    it('keeps old keys dead when a removed member is added back', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const { key } = await owner.createApiKey(member.token);
      await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);
      await http()
        .post('/v1/organisation/members')
        .set(owner.auth)
        .send({
          email: member.email,
          password: 'a-new-password',
          role: 'member',
          workspaceIds: [owner.defaultWorkspaceId],
        })
        .expect(201);
      await login(testApp.server, member.email, 'a-new-password');
      await http().get('/v1/me').set('api-key', key).expect(403);
    });
  });
});
