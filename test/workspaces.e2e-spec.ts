import request from 'supertest';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('Workspaces, members and isolation', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  it('creates a workspace with a default account, and the creator becomes a member', async () => {
    const created = await http()
      .post('/v1/workspaces')
      .set(owner.auth)
      .send({ name: 'Brand A' })
      .expect(201);
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'Brand A' });

    const accounts = await http()
      .get('/v1/accounts')
      .set(owner.auth)
      .set('x-workspace-id', created.body.id)
      .expect(200);
    expect(accounts.body).toEqual({
      items: [
        expect.objectContaining({ name: 'Brand A', isDefault: true, workspaceId: created.body.id }),
      ],
      cursor: null,
      hasMore: false,
    });

    const mine = await http().get('/v1/workspaces').set(owner.auth).expect(200);
    expect(mine.body.map((w: { id: string }) => w.id)).toEqual([
      owner.defaultWorkspaceId,
      created.body.id,
    ]);
  });

  it("gives passes created without an account the workspace's default, whatever is added", async () => {
    // Each instance keeps a workspace's default account for good (AccountStore): adding
    // accounts and workspaces must never make what it kept differ from what the database says.
    const workspace = (
      await http().post('/v1/workspaces').set(owner.auth).send({ name: 'Kept default' }).expect(201)
    ).body.id as string;
    const inWorkspace = { ...owner.auth, 'x-workspace-id': workspace };
    let made = 0;
    const newPass = async () =>
      (
        await http()
          .post('/v1/wallet-pass')
          .set(inWorkspace)
          .send({
            passName: `Pass ${++made}`,
            passMetadata: { description: 'Card', organizationName: 'Brand' },
          })
          .expect(201)
      ).body as { accountId: string };
    const defaultOf = async () => {
      const listed = await http().get('/v1/accounts').set(inWorkspace).expect(200);
      const defaults = (listed.body.items as { id: string; isDefault: boolean }[]).filter(
        (account) => account.isDefault,
      );
      expect(defaults).toHaveLength(1);
      return defaults[0].id;
    };

    const original = await defaultOf();
    expect((await newPass()).accountId).toBe(original);
    await http().post('/v1/accounts').set(inWorkspace).send({ name: 'Second brand' }).expect(201);
    await http().post('/v1/workspaces').set(owner.auth).send({ name: 'Neighbour' }).expect(201);
    expect(await defaultOf()).toBe(original);
    expect((await newPass()).accountId).toBe(original);
  });

  it('refuses a duplicate workspace name with 409', async () => {
    await http().post('/v1/workspaces').set(owner.auth).send({ name: 'Twice' }).expect(201);
    const response = await http()
      .post('/v1/workspaces')
      .set(owner.auth)
      .send({ name: 'Twice' })
      .expect(409);
    expect(response.body).toMatchObject({ errorCode: 'CONFLICT', context: { name: 'Twice' } });
  });

  it('lets only owners and admins create workspaces and manage members', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    const admin = await owner.addMember('admin', [owner.defaultWorkspaceId]);

    const denied = await http()
      .post('/v1/workspaces')
      .set(bearer(member.token))
      .send({ name: 'Nope' })
      .expect(403);
    expect(denied.body.errorCode).toBe('FORBIDDEN');
    await http().get('/v1/organisation/members').set(bearer(member.token)).expect(403);

    await http()
      .post('/v1/workspaces')
      .set(bearer(admin.token))
      .send({ name: 'By admin' })
      .expect(201);
    const ownerAttempt = await http()
      .post('/v1/organisation/members')
      .set(bearer(admin.token))
      .send({
        email: 'new-owner@test.example',
        password: 'long-password',
        role: 'owner',
        workspaceIds: [],
      })
      .expect(403);
    expect(ownerAttempt.body.errorMessage).toBe('Only an owner can add another owner');
  });

  it('confines an admin to assigning workspaces they are a member of; an owner assigns any', async () => {
    const closed = await owner.createWorkspace('Closed to the admin');
    const admin = await owner.addMember('admin', [owner.defaultWorkspaceId]);
    const asAdmin = (email: string, workspaceIds: string[], role = 'member') =>
      http()
        .post('/v1/organisation/members')
        .set(bearer(admin.token))
        .send({ email, password: 'long-password', role, workspaceIds });

    for (const role of ['member', 'admin']) {
      const denied = await asAdmin(
        `intruder-${role}@test.example`,
        [owner.defaultWorkspaceId, closed],
        role,
      ).expect(403);
      expect(denied.body).toMatchObject({
        errorCode: 'FORBIDDEN',
        errorMessage: 'Admins can only assign workspaces they are a member of',
        context: { workspaceId: closed },
      });
    }
    const members = await http().get('/v1/organisation/members').set(owner.auth).expect(200);
    expect(members.body.some((m: { email: string }) => m.email.startsWith('intruder-'))).toBe(
      false,
    );

    // Their own workspaces, including one they create, are theirs to assign.
    await asAdmin('helper@test.example', [owner.defaultWorkspaceId]).expect(201);
    const own = await http()
      .post('/v1/workspaces')
      .set(bearer(admin.token))
      .send({ name: 'Made by the admin' })
      .expect(201);
    await asAdmin('helper2@test.example', [own.body.id]).expect(201);

    await http()
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({
        email: 'closed-member@test.example',
        password: 'long-password',
        role: 'member',
        workspaceIds: [closed],
      })
      .expect(201);
  });

  it('refuses a duplicate member e-mail (409), an unknown workspace (404) and removing yourself (409)', async () => {
    const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
    const duplicate = await http()
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({
        email: member.email.toUpperCase(),
        password: 'long-password',
        role: 'member',
        workspaceIds: [],
      })
      .expect(409);
    expect(duplicate.body.errorCode).toBe('CONFLICT');

    const unknown = await http()
      .post('/v1/organisation/members')
      .set(owner.auth)
      .send({
        email: 'x@test.example',
        password: 'long-password',
        role: 'member',
        workspaceIds: ['no-such-workspace'],
      })
      .expect(404);
    expect(unknown.body.context).toEqual({ id: 'no-such-workspace' });

    const me = await http().get('/v1/me').set(owner.auth).expect(200);
    await http().delete(`/v1/organisation/members/${me.body.user.id}`).set(owner.auth).expect(409);
    await http().delete('/v1/organisation/members/no-such-user').set(owner.auth).expect(404);
  });

  describe('x-workspace-id', () => {
    let otherWorkspaceId: string;
    let memberToken: string;

    beforeAll(async () => {
      otherWorkspaceId = await owner.createWorkspace('Not for the member');
      memberToken = (await owner.addMember('member', [owner.defaultWorkspaceId])).token;
    });

    it('defaults to the first workspace assigned', async () => {
      const response = await http().get('/v1/accounts').set(bearer(memberToken)).expect(200);
      expect(
        response.body.items.every(
          (a: { workspaceId: string }) => a.workspaceId === owner.defaultWorkspaceId,
        ),
      ).toBe(true);
    });

    it('answers a malformed header with 400 and the header in context', async () => {
      const response = await http()
        .get('/v1/accounts')
        .set(bearer(memberToken))
        .set('x-workspace-id', 'bad id!')
        .expect(400);
      expect(response.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { 'x-workspace-id': 'must match ^[a-zA-Z0-9-_]+$' },
      });
      expect(response.body.errorMessage).toBeUndefined();
    });

    it('answers a workspace the caller is not a member of with 403', async () => {
      const response = await http()
        .get('/v1/accounts')
        .set(bearer(memberToken))
        .set('x-workspace-id', otherWorkspaceId)
        .expect(403);
      expect(response.body.errorCode).toBe('FORBIDDEN');
      await http()
        .get('/v1/accounts')
        .set(bearer(memberToken))
        .set('x-workspace-id', 'does-not-exist')
        .expect(403);
    });

    it('answers a record of another workspace with 404, never its content', async () => {
      const other = await http()
        .post('/v1/accounts')
        .set(owner.auth)
        .set('x-workspace-id', otherWorkspaceId)
        .send({ name: 'Secret account' })
        .expect(201);

      // The owner is a member of both, but the record lives in the other workspace.
      const fromDefault = await http()
        .get(`/v1/accounts/${other.body.id}`)
        .set(owner.auth)
        .set('x-workspace-id', owner.defaultWorkspaceId)
        .expect(404);
      expect(fromDefault.body).toMatchObject({
        errorCode: 'NOT_FOUND',
        context: { id: other.body.id },
      });
      expect(JSON.stringify(fromDefault.body)).not.toContain('Secret account');

      const list = await http().get('/v1/accounts').set(bearer(memberToken)).expect(200);
      expect(JSON.stringify(list.body)).not.toContain('Secret account');

      await http()
        .get(`/v1/accounts/${other.body.id}`)
        .set(owner.auth)
        .set('x-workspace-id', otherWorkspaceId)
        .expect(200);
    });

    it("works the same with an API key, which inherits its creator's workspaces", async () => {
      const { key } = await owner.createApiKey(memberToken);
      await http().get('/v1/accounts').set('api-key', key).expect(200);
      await http()
        .get('/v1/accounts')
        .set('api-key', key)
        .set('x-workspace-id', otherWorkspaceId)
        .expect(403);
    });
  });
});

describe('Paging', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let workspaceId: string;
  const created: string[] = [];

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
    workspaceId = await owner.createWorkspace('Paging');
    const defaults = await request(testApp.server)
      .get('/v1/accounts')
      .set(owner.auth)
      .set('x-workspace-id', workspaceId);
    created.push(defaults.body.items[0].id);
    for (let i = 0; i < 44; i++) {
      const response = await request(testApp.server)
        .post('/v1/accounts')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ name: `Account ${i}` })
        .expect(201);
      created.push(response.body.id);
    }
  });
  afterAll(() => testApp.close());

  const page = (query: Record<string, string | number>) =>
    request(testApp.server)
      .get('/v1/accounts')
      .set(owner.auth)
      .set('x-workspace-id', workspaceId)
      .query(query);

  it('returns every record exactly once, newest first, even while records are added', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> =
        cursor === null ? { limit: 20 } : { limit: 20, cursor };
      const response: request.Response = await page(query).expect(200);
      seen.push(...response.body.items.map((item: { id: string }) => item.id));
      expect(response.body.hasMore).toBe(response.body.cursor !== null);
      cursor = response.body.cursor;
      pages += 1;
      // A record created between pages is newer than the cursor: it never shifts later pages.
      await request(testApp.server)
        .post('/v1/accounts')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ name: `Late ${pages}` })
        .expect(201);
    } while (cursor !== null);

    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 and accepts 1', async () => {
    expect((await page({}).expect(200)).body.items).toHaveLength(20);
    const one = await page({ limit: 1 }).expect(200);
    expect(one.body.items).toHaveLength(1);
    expect(one.body.hasMore).toBe(true);
  });

  it.each([['0'], ['21'], ['abc'], ['1.5']])('refuses limit=%s with 400', async (limit) => {
    const response = await page({ limit }).expect(400);
    expect(response.body).toMatchObject({
      errorCode: 'INVALID_INPUT',
      context: { limit: expect.any(String) },
    });
  });

  it('refuses a cursor it did not issue with 400', async () => {
    for (const cursor of [
      'not-a-cursor',
      Buffer.from('{"after":"x y"}').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
    ]) {
      const response = await page({ cursor }).expect(400);
      expect(response.body.context).toEqual({ cursor: 'is not a cursor returned by this list' });
    }
  });
});
