import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { OwnerSession } from './support/session';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * A request's principal is reused for up to a second (PrincipalChanges). Every change to keys,
 * users or memberships must still show in the very next request: each test first makes the
 * credential's rows cached by using it, then changes them, then uses it again at once.
 */
describe('Cached principals and the changes that drop them', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  it('refuses a revoked API key on the very next request', async () => {
    const { id, key } = await owner.createApiKey();
    await http().get('/v1/wallet-pass').set('api-key', key).expect(200);
    await http().delete(`/v1/api-keys/${id}`).set(owner.auth).expect(204);
    const refused = await http().get('/v1/wallet-pass').set('api-key', key).expect(403);
    expect(refused.body.errorCode).toBe('FORBIDDEN');
  });

  it('refuses the tokens issued before a password change on the very next request', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    await http().get('/v1/me').set(bearer(member.token)).expect(200);
    await http()
      .patch('/v1/me/password')
      .set(bearer(member.token))
      .send({ currentPassword: member.password, newPassword: 'copper lantern meadow 7' })
      .expect(204);
    await http().get('/v1/me').set(bearer(member.token)).expect(401);
    const fresh = await login(testApp.server, member.email, 'copper lantern meadow 7');
    await http().get('/v1/me').set(bearer(fresh)).expect(200);
  });

  it("refuses a removed member's key and token on the very next request", async () => {
    const member = await owner.addMember('admin', [owner.defaultWorkspaceId]);
    const { key } = await owner.createApiKey(member.token);
    await http().get('/v1/wallet-pass').set('api-key', key).expect(200);
    await http().get('/v1/me').set(bearer(member.token)).expect(200);
    await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);
    await http().get('/v1/wallet-pass').set('api-key', key).expect(403);
    await http().get('/v1/me').set(bearer(member.token)).expect(401);
  });

  it('lets the very next request act in a workspace the caller just created', async () => {
    const { key } = await owner.createApiKey();
    await http().get('/v1/wallet-pass').set('api-key', key).expect(200);
    const created = await http()
      .post('/v1/workspaces')
      .set('api-key', key)
      .send({ name: `Fresh ${randomBytes(3).toString('hex')}` })
      .expect(201);
    await http()
      .get('/v1/wallet-pass')
      .set('api-key', key)
      .set('x-workspace-id', (created.body as { id: string }).id)
      .expect(200);
  });

  it("shows a re-added member's new role and workspaces on the very next request", async () => {
    const workspace = await owner.createWorkspace();
    const member = await owner.addMember('branded', [owner.defaultWorkspaceId]);
    const { key } = await owner.createApiKey(member.token);
    await http().get('/v1/wallet-pass').set('api-key', key).expect(200);
    await http().delete(`/v1/organisation/members/${member.id}`).set(owner.auth).expect(204);
    await http()
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({
        email: member.email,
        password: 'a brand new password 9',
        role: 'member',
        workspaceIds: [workspace],
      })
      .expect(201);
    // The old key died with the removal and stays dead; the new token sees the new workspace.
    await http().get('/v1/wallet-pass').set('api-key', key).expect(403);
    const token = await login(testApp.server, member.email, 'a brand new password 9');
    const me = await http().get('/v1/me').set(bearer(token)).expect(200);
    expect((me.body as { workspaces: { id: string }[] }).workspaces.map((w) => w.id)).toEqual([
      workspace,
    ]);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
// Runs whenever a Redis is available to the test command (always in CI, see .ci/run).
(redisUrl === undefined ? describe.skip : describe)(
  'Cached principals across two instances sharing Redis',
  () => {
    let first: TestApp;
    let second: TestApp;
    let owner: OwnerSession;

    beforeAll(async () => {
      const env = {
        REDIS_URL: redisUrl ?? '',
        REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      };
      first = await startTestApp(env);
      // The same database: the second instance only closes, the first drops it.
      second = await startTestApp(env, first.database);
      owner = await OwnerSession.start(first.server);
    });
    afterAll(async () => {
      await second.app.close();
      await first.close();
    });

    it('refuses on one instance a key revoked through the other, on the very next request', async () => {
      const { id, key } = await owner.createApiKey();
      await request(second.server).get('/v1/wallet-pass').set('api-key', key).expect(200);
      await request(first.server).delete(`/v1/api-keys/${id}`).set(owner.auth).expect(204);
      await request(second.server).get('/v1/wallet-pass').set('api-key', key).expect(403);
    });

    it('refuses on one instance a member removed through the other', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const { key } = await owner.createApiKey(member.token);
      await request(second.server).get('/v1/wallet-pass').set('api-key', key).expect(200);
      await request(second.server).get('/v1/me').set(bearer(member.token)).expect(200);
      await request(first.server)
        .delete(`/v1/organisation/members/${member.id}`)
        .set(owner.auth)
        .expect(204);
      await request(second.server).get('/v1/wallet-pass').set('api-key', key).expect(403);
      await request(second.server).get('/v1/me').set(bearer(member.token)).expect(401);
    });

    it('refuses on one instance a token whose password was changed through the other', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      await request(second.server).get('/v1/me').set(bearer(member.token)).expect(200);
      await request(first.server)
        .patch('/v1/me/password')
        .set(bearer(member.token))
        .send({ currentPassword: member.password, newPassword: 'velvet orchard signal 5' })
        .expect(204);
      await request(second.server).get('/v1/me').set(bearer(member.token)).expect(401);
    });
  },
);
