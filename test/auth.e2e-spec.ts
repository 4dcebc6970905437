import { sign } from 'jsonwebtoken';
import { createSign, generateKeyPairSync } from 'node:crypto';
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
      expect(malformed.body.errorMessage).toBe('Malformed API key');
      const empty = await http().get('/v1/me').set('api-key', '').expect(403);
      expect(empty.body).toMatchObject({ errorCode: 'FORBIDDEN', errorMessage: 'Invalid API key' });

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

  describe('token lifetime', () => {
    it("refuses a removed member's old token once the same e-mail is added back; the new token works", async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);
      await http()
        .post('/v1/organisation/members')
        .set(owner.auth)
        .send({
          email: member.email,
          password: 'the-second-password',
          role: 'admin',
          workspaceIds: [owner.defaultWorkspaceId],
        })
        .expect(201);

      const old = await http().get('/v1/me').set(bearer(member.token)).expect(401);
      expect(old.body.errorCode).toBe('UNAUTHORIZED');
      const fresh = await login(testApp.server, member.email, 'the-second-password');
      const me = await http().get('/v1/me').set(bearer(fresh)).expect(200);
      expect(me.body.user.role).toBe('admin');
    });

    it('refuses a token of ours without a token version', async () => {
      const me = await http().get('/v1/me').set(owner.auth).expect(200);
      const unversioned = sign({ sub: me.body.user.id }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        expiresIn: 600,
      });
      await http().get('/v1/me').set(bearer(unversioned)).expect(401);
    });
  });

  describe('PATCH /v1/me/password', () => {
    it('changes the password (204) and ends every token issued before; API keys stay', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const second = await login(testApp.server, member.email, member.password);
      const { key } = await owner.createApiKey(member.token);

      await http()
        .patch('/v1/me/password')
        .set(bearer(member.token))
        .send({ currentPassword: member.password, newPassword: 'plum kettle harbour 42' })
        .expect(204);

      for (const token of [member.token, second]) {
        const refused = await http().get('/v1/me').set(bearer(token)).expect(401);
        expect(refused.body.errorCode).toBe('UNAUTHORIZED');
      }
      await http()
        .post('/v1/auth/login')
        .send({ email: member.email, password: member.password })
        .expect(401);
      const fresh = await login(testApp.server, member.email, 'plum kettle harbour 42');
      await http().get('/v1/me').set(bearer(fresh)).expect(200);
      await http().get('/v1/me').set('api-key', key).expect(200);
    });

    it('answers a wrong current password with 403 and changes nothing', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const response = await http()
        .patch('/v1/me/password')
        .set(bearer(member.token))
        .send({ currentPassword: 'not-my-password', newPassword: 'plum kettle harbour 42' })
        .expect(403);
      expect(response.body.errorCode).toBe('FORBIDDEN');
      await http().get('/v1/me').set(bearer(member.token)).expect(200);
      await login(testApp.server, member.email, member.password);
    });

    it.each([
      [
        'shorter than 12 characters',
        'short-pass1',
        'must be longer than or equal to 12 characters',
      ],
      ['one of the most common passwords', 'Password1234', 'is one of the most common passwords'],
      ['blank', ' '.repeat(14), 'must not be blank'],
      ['one character repeated', 'x'.repeat(16), 'must not be one character repeated'],
    ])(
      'refuses a new password %s with 400 and context.newPassword',
      async (_, newPassword, message) => {
        const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
        const response = await http()
          .patch('/v1/me/password')
          .set(bearer(member.token))
          .send({ currentPassword: member.password, newPassword })
          .expect(400);
        expect(response.body).toMatchObject({
          errorCode: 'INVALID_INPUT',
          context: { newPassword: message },
        });
        await http().get('/v1/me').set(bearer(member.token)).expect(200);
      },
    );

    it('refuses the e-mail address as the new password', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const response = await http()
        .patch('/v1/me/password')
        .set(bearer(member.token))
        .send({ currentPassword: member.password, newPassword: member.email.toUpperCase() })
        .expect(400);
      expect(response.body.context).toEqual({ newPassword: 'must not be the e-mail address' });
    });
  });

  describe('weak passwords for members', () => {
    const add = (email: string, password: string) =>
      http()
        .post('/v1/organisation/members')
        .set(owner.auth)
        .send({ email, password, role: 'member', workspaceIds: [owner.defaultWorkspaceId] });

    it.each([
      ['password', 'is one of the most common passwords'],
      ['12345678', 'is one of the most common passwords'],
      ['QWERTYUIOP', 'is one of the most common passwords'],
      [' '.repeat(10), 'must not be blank'],
      ['\u00a0\u3000\u00a0\u3000\u00a0\u3000\u00a0\u3000', 'must not be blank'],
      ['aaaaaaaaaa', 'must not be one character repeated'],
    ])('refuses %j when adding a member', async (password, message) => {
      const response = await add(`weak-${Date.now()}@test.example`, password).expect(400);
      expect(response.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { password: message },
      });
    });

    it('refuses the e-mail address or its local part as the password', async () => {
      const response = await add('casey.jones@test.example', 'Casey.Jones').expect(400);
      expect(response.body.context).toEqual({ password: 'must not be the e-mail address' });
    });

    it('refuses a weak password when a removed member is added back', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);
      const response = await add(member.email, 'password123').expect(400);
      expect(response.body.context).toEqual({ password: 'is one of the most common passwords' });
    });
  });

  describe('API key cap', () => {
    it('refuses a 21st working key with 409 CONFLICT; revoking one makes room', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const keys: { id: string }[] = [];
      for (let i = 0; i < 20; i++) keys.push(await owner.createApiKey(member.token, `key ${i}`));
      const refused = await http()
        .post('/v1/api-keys')
        .set(bearer(member.token))
        .send({ name: 'one too many' })
        .expect(409);
      expect(refused.body).toMatchObject({ errorCode: 'CONFLICT', context: { limit: 20 } });

      await http().delete(`/v1/api-keys/${keys[0].id}`).set(bearer(member.token)).expect(204);
      await owner.createApiKey(member.token, 'replacement');
    });
  });
});

describe('Identity-provider tokens (JWT_PUBLIC_KEY)', () => {
  const ISSUER = 'https://idp.test.example/';
  const AUDIENCE = 'wallet-pass-service';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let testApp: TestApp;
  let owner: OwnerSession;
  let ownerId: string;

  beforeAll(async () => {
    testApp = await startTestApp({
      JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
    });
    owner = await OwnerSession.start(testApp.server);
    ownerId = (await request(testApp.server).get('/v1/me').set(owner.auth).expect(200)).body.user
      .id;
  });
  afterAll(() => testApp.close());

  const now = () => Math.floor(Date.now() / 1000);
  /** An RS256 token as an identity provider would issue it; `undefined` leaves a claim out. */
  const idpToken = (claims: Record<string, unknown>) => {
    const payload = { iat: now() - 5, exp: now() + 600, iss: ISSUER, aud: AUDIENCE, ...claims };
    const present = Object.entries(payload).filter(([, value]) => value !== undefined);
    // jsonwebtoken keeps a given `iat` and adds one only when the payload has none: sign the
    // encoded parts by hand so that a token without `iat` can be made too.
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(Object.fromEntries(present))}`;
    const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey, 'base64url');
    return `${unsigned}.${signature}`;
  };
  const me = (token: string) => request(testApp.server).get('/v1/me').set(bearer(token));

  it('accepts a token with exp, the configured iss and aud', async () => {
    await me(idpToken({ sub: ownerId })).expect(200);
    await me(idpToken({ sub: ownerId, aud: ['other', AUDIENCE] })).expect(200);
  });

  it('refuses a token without exp, with a wrong or missing iss or aud, or without iat', async () => {
    for (const claims of [
      { exp: undefined },
      { iss: 'https://evil.example/' },
      { iss: undefined },
      { aud: 'another-service' },
      { aud: undefined },
      { iat: undefined },
    ]) {
      const response = await me(idpToken({ sub: ownerId, ...claims }));
      expect({ claims, status: response.status }).toEqual({ claims, status: 401 });
    }
  });

  it('refuses a token issued before the user changed their password', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    const before = idpToken({ sub: member.id });
    await me(before).expect(200);
    await request(testApp.server)
      .patch('/v1/me/password')
      .set(bearer(member.token))
      .send({ currentPassword: member.password, newPassword: 'plum kettle harbour 42' })
      .expect(204);
    await me(before).expect(401);
    await me(idpToken({ sub: member.id, iat: now() + 1 })).expect(200);
  });

  it('refuses a token issued before the user was removed and added back', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    const before = idpToken({ sub: member.id });
    await request(testApp.server)
      .delete(`/v1/organisation/members/${member.id}`)
      .set(owner.auth)
      .expect(204);
    await request(testApp.server)
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({
        email: member.email,
        password: 'the-second-password',
        role: 'member',
        workspaceIds: [owner.defaultWorkspaceId],
      })
      .expect(201);
    await me(before).expect(401);
  });
});
