import { LocationsService, PassLocation } from '@app/locations';
import { Pass, HolderChanges } from '@app/passes';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const METADATA = { description: 'd', organizationName: 'o' };
const ID = /^[a-zA-Z0-9-_]+$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface LocationBody {
  id: string;
  name: string;
  enabled: boolean;
  walletPass: { id: string } | null;
  createdTime: string;
  updatedTime: string;
  [field: string]: unknown;
}

describe('Locations', () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);
  const inWorkspace = (workspaceId?: string) =>
    workspaceId === undefined ? owner.auth : { ...owner.auth, 'x-workspace-id': workspaceId };

  let counter = 0;
  async function createPass(workspaceId?: string): Promise<{ id: string; accountId: string }> {
    const response = await http()
      .post('/v1/wallet-pass')
      .set(inWorkspace(workspaceId))
      .send({ passName: `Pass ${++counter}`, passMetadata: METADATA })
      .expect(201);
    return response.body as { id: string; accountId: string };
  }

  const body = (fields: Record<string, unknown> = {}) => ({
    name: `Location ${++counter}`,
    latitude: 51.5074,
    longitude: -0.1278,
    relevantText: 'Welcome to the store',
    ...fields,
  });

  const post = (fields: Record<string, unknown> = {}, workspaceId?: string) =>
    http().post('/v1/wallet-pass-location').set(inWorkspace(workspaceId)).send(body(fields));

  async function createLocation(
    fields: Record<string, unknown> = {},
    workspaceId?: string,
  ): Promise<LocationBody> {
    return (await post(fields, workspaceId).expect(201)).body as LocationBody;
  }

  const put = (id: string, fields: Record<string, unknown>, workspaceId?: string) =>
    http().put(`/v1/wallet-pass-location/${id}`).set(inWorkspace(workspaceId)).send(fields);

  async function passVersion(id: string): Promise<number> {
    const pass = await testApp.app.get(DataSource).getRepository(Pass).findOneByOrFail({ id });
    return pass.version;
  }

  async function listAll(query: string, workspaceId?: string): Promise<LocationBody[]> {
    const response = await http()
      .get(`/v1/wallet-pass-location?${query}`)
      .set(inWorkspace(workspaceId))
      .expect(200);
    return (response.body as { items: LocationBody[] }).items;
  }

  describe('create and read', () => {
    it('creates a location of a pass with every field of the spec', async () => {
      const pass = await createPass();
      const me = await http().get('/v1/me').set(owner.auth).expect(200);
      const response = await post({
        name: 'Flagship store',
        latitude: -33.8688,
        longitude: 151.2093,
        relevantText: 'Your offer is waiting',
        enabled: false,
        altitude: 58.5,
        walletPass: { id: pass.id },
      }).expect(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(ID),
        name: 'Flagship store',
        latitude: -33.8688,
        longitude: 151.2093,
        relevantText: 'Your offer is waiting',
        enabled: false,
        altitude: 58.5,
        walletPass: { id: pass.id },
        accountId: pass.accountId,
        workspaceId: owner.defaultWorkspaceId,
        createdTime: expect.stringMatching(ISO_TIME),
        updatedTime: expect.stringMatching(ISO_TIME),
        createdBy: me.body.user.id,
        updatedBy: me.body.user.id,
      });
      const read = await http()
        .get(`/v1/wallet-pass-location/${response.body.id}`)
        .set(owner.auth)
        .expect(200);
      expect(read.body).toEqual(response.body);
    });

    it('defaults enabled to true, altitude to null, and allows no pass (accountId null)', async () => {
      const location = await createLocation();
      expect(location).toMatchObject({
        enabled: true,
        altitude: null,
        walletPass: null,
        accountId: null,
      });
      const withNulls = await createLocation({ enabled: null, altitude: null, walletPass: null });
      expect(withNulls).toMatchObject({ enabled: true, altitude: null, walletPass: null });
    });

    it('accepts the edges of the globe and negative altitudes', async () => {
      const location = await createLocation({ latitude: -90, longitude: 180, altitude: -400 });
      expect(location).toMatchObject({ latitude: -90, longitude: 180, altitude: -400 });
      await post({ latitude: 90, longitude: -180 }).expect(201);
    });

    it('ignores read-only fields sent back and refuses unknown fields', async () => {
      const location = await createLocation({
        id: 'chosen-by-client',
        accountId: 'x',
        workspaceId: 'y',
        createdTime: '2000-01-01T00:00:00.000Z',
        updatedTime: '2000-01-01T00:00:00.000Z',
        createdBy: 'someone',
        updatedBy: 'someone',
      });
      expect(location.id).not.toBe('chosen-by-client');
      expect(location.workspaceId).toBe(owner.defaultWorkspaceId);
      expect(location.createdTime).not.toBe('2000-01-01T00:00:00.000Z');

      const response = await post({ radius: 100, walletPass: { id: 'a', serial: 'b' } }).expect(
        400,
      );
      expect(response.body.context).toEqual({
        radius: 'is not a known field',
        'walletPass.serial': 'is not a known field',
      });
    });
  });

  describe('validation', () => {
    it("names each missing or empty required field with the spec's messages", async () => {
      const missing = await http()
        .post('/v1/wallet-pass-location')
        .set(owner.auth)
        .send({})
        .expect(400);
      expect(missing.body.errorCode).toBe('INVALID_INPUT');
      expect(missing.body.errorMessage).toBeUndefined();
      expect(missing.body.context).toEqual({
        name: 'must not be null',
        latitude: 'must not be null',
        longitude: 'must not be null',
        relevantText: 'must not be null',
      });

      const empty = await post({ name: '', relevantText: '', latitude: null }).expect(400);
      expect(empty.body.context).toEqual({
        name: 'must not be empty',
        relevantText: 'must not be empty',
        latitude: 'must not be null',
      });

      const noPassId = await post({ walletPass: {} }).expect(400);
      expect(noPassId.body.context).toEqual({ 'walletPass.id': 'must not be null' });
    });

    it('limits name and relevantText to 255 characters', async () => {
      await post({ name: 'n'.repeat(255), relevantText: 'r'.repeat(255) }).expect(201);
      const tooLong = await post({ name: 'n'.repeat(256), relevantText: 'r'.repeat(256) }).expect(
        400,
      );
      expect(Object.keys(tooLong.body.context).sort()).toEqual(['name', 'relevantText']);
    });

    it('keeps latitude within ±90 and longitude within ±180', async () => {
      const latitude = await post({ latitude: 91 }).expect(400);
      expect(Object.keys(latitude.body.context)).toEqual(['latitude']);
      const longitude = await post({ longitude: -181 }).expect(400);
      expect(Object.keys(longitude.body.context)).toEqual(['longitude']);
    });

    it('takes numbers and booleans only as JSON numbers and booleans', async () => {
      const response = await post({
        latitude: '12',
        longitude: '13',
        altitude: '5',
        enabled: 'false',
      }).expect(400);
      expect(Object.keys(response.body.context).sort()).toEqual([
        'altitude',
        'enabled',
        'latitude',
        'longitude',
      ]);
    });

    it('refuses a malformed location id in the path', async () => {
      const response = await http()
        .get('/v1/wallet-pass-location/not%20an%20id')
        .set(owner.auth)
        .expect(400);
      expect(response.body.context).toEqual({ locationId: 'must match ^[a-zA-Z0-9-_]+$' });
    });
  });

  describe('the referenced pass', () => {
    it('must exist (404 naming its id)', async () => {
      const response = await post({ walletPass: { id: 'no-such-pass' } }).expect(404);
      expect(response.body).toMatchObject({
        errorCode: 'NOT_FOUND',
        errorMessage: 'Pass not found',
        context: { id: 'no-such-pass' },
      });
    });

    it('must be a pass of this workspace', async () => {
      const other = await owner.createWorkspace();
      const foreign = await createPass(other);
      const response = await post({ walletPass: { id: foreign.id } }).expect(404);
      expect(response.body.context).toEqual({ id: foreign.id });
      // ...and the same pass is fine from its own workspace.
      await post({ walletPass: { id: foreign.id } }, other).expect(201);
    });

    it('must not be deleted', async () => {
      const pass = await createPass();
      const location = await createLocation({ walletPass: { id: pass.id } });
      await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
      const created = await post({ walletPass: { id: pass.id } }).expect(404);
      expect(created.body.context).toEqual({ id: pass.id });
      await put(location.id, body({ walletPass: { id: pass.id } })).expect(404);
      // The location itself stays readable and can be detached or deleted.
      await http().get(`/v1/wallet-pass-location/${location.id}`).set(owner.auth).expect(200);
      const detached = await put(location.id, body()).expect(200);
      expect(detached.body.walletPass).toBeNull();
      await http().delete(`/v1/wallet-pass-location/${location.id}`).set(owner.auth).expect(204);
    });
  });

  describe('update', () => {
    it('replaces the whole location; absent optional fields take their defaults', async () => {
      const pass = await createPass();
      const location = await createLocation({
        enabled: false,
        altitude: 12,
        walletPass: { id: pass.id },
      });
      const changed = await put(location.id, {
        name: 'Renamed',
        latitude: 10,
        longitude: 20,
        relevantText: 'New text',
      }).expect(200);
      expect(changed.body).toMatchObject({
        id: location.id,
        name: 'Renamed',
        latitude: 10,
        longitude: 20,
        relevantText: 'New text',
        enabled: true,
        altitude: null,
        walletPass: null,
        accountId: null,
        createdTime: location.createdTime,
        createdBy: location.createdBy,
      });
      expect(changed.body.updatedTime >= location.updatedTime).toBe(true);
      const read = await http()
        .get(`/v1/wallet-pass-location/${location.id}`)
        .set(owner.auth)
        .expect(200);
      expect(read.body).toEqual(changed.body);
    });

    it('accepts a location read back as its body (read-only fields ignored)', async () => {
      const pass = await createPass();
      const location = await createLocation({ walletPass: { id: pass.id } });
      const echoed = await put(location.id, { ...location, name: 'Echoed' }).expect(200);
      expect(echoed.body).toMatchObject({
        id: location.id,
        name: 'Echoed',
        walletPass: { id: pass.id },
        accountId: pass.accountId,
      });
    });

    it('needs the same fields as create', async () => {
      const location = await createLocation();
      const response = await put(location.id, { name: 'Only a name' }).expect(400);
      expect(response.body.context).toEqual({
        latitude: 'must not be null',
        longitude: 'must not be null',
        relevantText: 'must not be null',
      });
      const unknownPass = await put(location.id, body({ walletPass: { id: 'nope' } })).expect(404);
      expect(unknownPass.body.context).toEqual({ id: 'nope' });
    });

    it('is a 404 for an unknown location', async () => {
      const response = await put('no-such-location', body()).expect(404);
      expect(response.body).toMatchObject({
        errorCode: 'NOT_FOUND',
        context: { id: 'no-such-location' },
      });
    });
  });

  describe('delete', () => {
    it('deletes (204), after which the location is not found', async () => {
      const location = await createLocation();
      const deleted = await http()
        .delete(`/v1/wallet-pass-location/${location.id}`)
        .set(owner.auth)
        .expect(204);
      expect(deleted.text).toBe('');
      const read = await http()
        .get(`/v1/wallet-pass-location/${location.id}`)
        .set(owner.auth)
        .expect(404);
      expect(read.body).toMatchObject({ errorCode: 'NOT_FOUND', context: { id: location.id } });
      await http().delete(`/v1/wallet-pass-location/${location.id}`).set(owner.auth).expect(404);
    });
  });

  describe('access', () => {
    it('hides locations of other workspaces (404 with the id)', async () => {
      const other = await owner.createWorkspace();
      const foreign = await createLocation({ name: 'Foreign location' }, other);
      const path = `/v1/wallet-pass-location/${foreign.id}`;
      const read = await http().get(path).set(owner.auth).expect(404);
      expect(read.body.context).toEqual({ id: foreign.id });
      const written = await put(foreign.id, body()).expect(404);
      expect(written.body.context).toEqual({ id: foreign.id });
      await http().delete(path).set(owner.auth).expect(404);
      expect(await listAll(`id=${foreign.id}`)).toEqual([]);
      expect(await listAll('name=Foreign%20location')).toEqual([]);
      // Still there, unchanged, in its own workspace.
      const own = await http().get(path).set(inWorkspace(other)).expect(200);
      expect(own.body).toEqual(foreign);
    });

    it('needs credentials on every endpoint (401)', async () => {
      const location = await createLocation();
      const path = `/v1/wallet-pass-location/${location.id}`;
      for (const call of [
        http().post('/v1/wallet-pass-location').send(body()),
        http().get('/v1/wallet-pass-location'),
        http().get(path),
        http().put(path).send(body()),
        http().delete(path),
      ]) {
        const response = await call.expect(401);
        expect(response.body.errorCode).toBe('UNAUTHORIZED');
      }
      await http().get(path).set(owner.auth).expect(200);
    });

    it('lets branded users read but not write', async () => {
      const location = await createLocation();
      const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
      const path = `/v1/wallet-pass-location/${location.id}`;
      await http().get(path).set(bearer(branded.token)).expect(200);
      await http().get('/v1/wallet-pass-location').set(bearer(branded.token)).expect(200);
      await http()
        .post('/v1/wallet-pass-location')
        .set(bearer(branded.token))
        .send(body())
        .expect(403);
      await http().put(path).set(bearer(branded.token)).send(body()).expect(403);
      await http().delete(path).set(bearer(branded.token)).expect(403);
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      await http().put(path).set(bearer(member.token)).send(body()).expect(200);
    });
  });

  describe('search', () => {
    let workspaceId: string;
    let passA: string;
    let passB: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      workspaceId = await owner.createWorkspace('Search workspace');
      passA = (await createPass(workspaceId)).id;
      passB = (await createPass(workspaceId)).id;
      const rows: [string, string | null][] = [
        ['Store', passA],
        ['store', passB],
        ['Store ', null],
        ['Big STORE north', passA],
        ['100% coffee', passB],
        ['Park_gate', null],
        ['Parkxgate', passA],
      ];
      for (const [name, passId] of rows) {
        const created = await createLocation(
          { name, walletPass: passId === null ? null : { id: passId } },
          workspaceId,
        );
        ids[name] = created.id;
      }
    });

    const names = async (query: string) =>
      (await listAll(query, workspaceId)).map((location) => location.name);

    it('lists the workspace newest first', async () => {
      expect(await names('')).toEqual([
        'Parkxgate',
        'Park_gate',
        '100% coffee',
        'Big STORE north',
        'Store ',
        'store',
        'Store',
      ]);
    });

    it('searches names case-insensitively with keyword, LIKE wildcards taken literally', async () => {
      expect(await names('keyword=sToRe')).toEqual(['Big STORE north', 'Store ', 'store', 'Store']);
      expect(await names('keyword=100%25')).toEqual(['100% coffee']);
      expect(await names('keyword=k_g')).toEqual(['Park_gate']);
      expect(await names('keyword=nothing-like-this')).toEqual([]);
    });

    it('matches name exactly, case and trailing spaces included', async () => {
      const exact = await listAll('name=Store', workspaceId);
      expect(exact.map((location) => location.id)).toEqual([ids.Store]);
      expect(await names('name=store')).toEqual(['store']);
      expect(await names('name=Store%20')).toEqual(['Store ']);
      expect(await names('name=STORE')).toEqual([]);
      expect(await names('name=Park_gate')).toEqual(['Park_gate']);
    });

    it('filters by pass serial numbers, repeated or comma-separated', async () => {
      expect(await names(`passSerialNumbers=${passA}`)).toEqual([
        'Parkxgate',
        'Big STORE north',
        'Store',
      ]);
      const both = ['Parkxgate', '100% coffee', 'Big STORE north', 'store', 'Store'];
      expect(await names(`passSerialNumbers=${passA}&passSerialNumbers=${passB}`)).toEqual(both);
      expect(await names(`passSerialNumbers=${passA},${passB}`)).toEqual(both);
      expect(await names('passSerialNumbers=unknown-pass')).toEqual([]);
      const items = await listAll(`passSerialNumbers=${passB}&keyword=store`, workspaceId);
      expect(items.map((location) => location.walletPass)).toEqual([{ id: passB }]);
    });

    it('filters by ids (comma-separated or repeated) and by one id', async () => {
      expect(await names(`ids=${ids.Store},${ids['Park_gate']}`)).toEqual(['Park_gate', 'Store']);
      expect(await names(`ids=${ids.Store}&ids=${ids.store}`)).toEqual(['store', 'Store']);
      expect(await names(`id=${ids['100% coffee']}`)).toEqual(['100% coffee']);
      expect(await names(`id=${ids.Store}&name=store`)).toEqual([]);
    });

    it('refuses malformed filters', async () => {
      for (const query of [
        'passSerialNumbers=a,b%20c',
        'ids=bad%2Fid',
        'id=bad%20id',
        `keyword=${'k'.repeat(256)}`,
        `name=${'n'.repeat(256)}`,
        'limit=0',
        'limit=21',
        'cursor=not-a-cursor',
      ]) {
        const response = await http()
          .get(`/v1/wallet-pass-location?${query}`)
          .set(inWorkspace(workspaceId))
          .expect(400);
        expect(response.body.errorCode).toBe('INVALID_INPUT');
      }
    });
  });

  describe('paging', () => {
    it('returns each location once, newest first, with limit=2', async () => {
      const workspaceId = await owner.createWorkspace('Paging workspace');
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await createLocation({}, workspaceId)).id);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${cursor}`;
        const response = await http()
          .get(`/v1/wallet-pass-location?${query}`)
          .set(inWorkspace(workspaceId))
          .expect(200);
        const page = response.body as { items: LocationBody[]; cursor: string | null };
        expect(page.items.length).toBeLessThanOrEqual(2);
        expect(response.body.hasMore).toBe(page.cursor !== null);
        seen.push(...page.items.map((location) => location.id));
        cursor = page.cursor;
        pages++;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(seen).toEqual([...created].reverse());
    });
  });

  describe('at most 10 enabled locations per pass', () => {
    it('refuses the 11th enabled location (409) but takes disabled ones', async () => {
      const pass = await createPass();
      const ten: LocationBody[] = [];
      for (let i = 0; i < 10; i++) ten.push(await createLocation({ walletPass: { id: pass.id } }));
      const refused = await post({ walletPass: { id: pass.id } }).expect(409);
      expect(refused.body).toMatchObject({
        errorCode: 'CONFLICT',
        errorMessage: expect.any(String),
        context: { 'walletPass.id': pass.id, limit: 10 },
      });
      const explicit = await post({ walletPass: { id: pass.id }, enabled: true }).expect(409);
      expect(explicit.body.context).toEqual({ 'walletPass.id': pass.id, limit: 10 });

      const disabled = await createLocation({ walletPass: { id: pass.id }, enabled: false });
      // Enabling it later is the same 11th location.
      const enabling = await put(
        disabled.id,
        body({ walletPass: { id: pass.id }, enabled: true }),
      ).expect(409);
      expect(enabling.body.context).toEqual({ 'walletPass.id': pass.id, limit: 10 });
      // PUT without `enabled` means enabled (the default), so also refused.
      await put(disabled.id, body({ walletPass: { id: pass.id } })).expect(409);
      // Editing one of the ten keeps it within the limit.
      const first = ten[0];
      await put(first.id, body({ walletPass: { id: pass.id }, name: 'Edited' })).expect(200);

      // Moving an enabled location from another pass onto the full pass is refused too.
      const otherPass = await createPass();
      const mover = await createLocation({ walletPass: { id: otherPass.id } });
      await put(mover.id, body({ walletPass: { id: pass.id } })).expect(409);
      const unchanged = await http()
        .get(`/v1/wallet-pass-location/${mover.id}`)
        .set(owner.auth)
        .expect(200);
      expect(unchanged.body.walletPass).toEqual({ id: otherPass.id });

      // Disabling one of the ten makes room.
      await put(first.id, body({ walletPass: { id: pass.id }, enabled: false })).expect(200);
      await put(disabled.id, body({ walletPass: { id: pass.id }, enabled: true })).expect(200);
      await post({ walletPass: { id: pass.id } }).expect(409);

      const enabled = await testApp.app
        .get(LocationsService)
        .enabledForPass(owner.defaultWorkspaceId, pass.id);
      expect(enabled).toHaveLength(10);
      expect(enabled.every((location) => location.enabled && location.passId === pass.id)).toBe(
        true,
      );
      const enabledIds = enabled.map((location) => location.id);
      expect(enabledIds).toEqual([...enabledIds].sort());
      expect(enabledIds).toContain(disabled.id);
      expect(enabledIds).not.toContain(first.id);
    });

    it('holds under 15 concurrent creates: exactly 10 succeed and 5 get 409', async () => {
      const pass = await createPass();
      const versionBefore = await passVersion(pass.id);
      const responses = await Promise.all(
        Array.from({ length: 15 }, () => post({ walletPass: { id: pass.id } })),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses.filter((status) => status === 201)).toHaveLength(10);
      expect(statuses.filter((status) => status === 409)).toHaveLength(5);
      const listed = await listAll(`passSerialNumbers=${pass.id}`);
      expect(listed).toHaveLength(10);
      expect(listed.every((location) => location.enabled)).toBe(true);
      // Refused creates changed nothing: the version moved on once per created location.
      expect(await passVersion(pass.id)).toBe(versionBefore + 10);
    });

    it('counts per pass: locations without a pass or of other passes do not count', async () => {
      const full = await createPass();
      const other = await createPass();
      for (let i = 0; i < 10; i++) await createLocation({ walletPass: { id: full.id } });
      await createLocation({ walletPass: { id: other.id } });
      await createLocation();
      await post({ walletPass: { id: full.id } }).expect(409);
    });
  });

  describe('pass version', () => {
    it('moves on for every location change of the pass, on both passes of a move', async () => {
      const passA = await createPass();
      const passB = await createPass();
      let a = await passVersion(passA.id);
      let b = await passVersion(passB.id);

      const location = await createLocation({ walletPass: { id: passA.id } });
      expect(await passVersion(passA.id)).toBe(++a);

      await put(location.id, body({ walletPass: { id: passA.id }, name: 'Moved text' })).expect(
        200,
      );
      expect(await passVersion(passA.id)).toBe(++a);

      await put(location.id, body({ walletPass: { id: passB.id } })).expect(200);
      expect(await passVersion(passA.id)).toBe(++a);
      expect(await passVersion(passB.id)).toBe(++b);

      await put(location.id, body()).expect(200); // detached from B
      expect(await passVersion(passB.id)).toBe(++b);
      expect(await passVersion(passA.id)).toBe(a);

      await put(location.id, body({ walletPass: { id: passB.id } })).expect(200);
      expect(await passVersion(passB.id)).toBe(++b);
      await http().delete(`/v1/wallet-pass-location/${location.id}`).set(owner.auth).expect(204);
      expect(await passVersion(passB.id)).toBe(++b);

      // Locations without a pass and refused writes leave versions alone.
      await createLocation();
      await post({ walletPass: { id: passA.id }, latitude: 95 }).expect(400);
      expect(await passVersion(passA.id)).toBe(a);
      expect(await passVersion(passB.id)).toBe(b);
    });

    it('runs the pass change hooks in the transaction, after the location is written', async () => {
      const calls: { passId: string; version: number; locations: number }[] = [];
      testApp.app.get(HolderChanges).register(async (manager, pass) => {
        const locations = await manager.count(PassLocation, { where: { passId: pass.id } });
        calls.push({ passId: pass.id, version: pass.version, locations });
      });
      const passA = await createPass();
      const passB = await createPass();
      const ofThese = () =>
        calls.filter((call) => call.passId === passA.id || call.passId === passB.id);

      const location = await createLocation({ walletPass: { id: passA.id } });
      const a = await passVersion(passA.id);
      expect(ofThese()).toEqual([{ passId: passA.id, version: a, locations: 1 }]);

      calls.length = 0;
      await put(location.id, body({ walletPass: { id: passB.id } })).expect(200);
      expect(ofThese()).toEqual(
        expect.arrayContaining([
          { passId: passA.id, version: a + 1, locations: 0 },
          { passId: passB.id, version: await passVersion(passB.id), locations: 1 },
        ]),
      );
      expect(ofThese()).toHaveLength(2);

      calls.length = 0;
      await http().delete(`/v1/wallet-pass-location/${location.id}`).set(owner.auth).expect(204);
      expect(ofThese()).toEqual([
        { passId: passB.id, version: await passVersion(passB.id), locations: 0 },
      ]);

      // A refused write runs no hook.
      for (let i = 0; i < 10; i++) await createLocation({ walletPass: { id: passA.id } });
      calls.length = 0;
      await post({ walletPass: { id: passA.id } }).expect(409);
      expect(ofThese()).toEqual([]);
    });

    it('moves updatedTime of the pass on with the version', async () => {
      const pass = await createPass();
      const before = await testApp.app
        .get(DataSource)
        .getRepository(Pass)
        .findOneByOrFail({ id: pass.id });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await createLocation({ walletPass: { id: pass.id } });
      const after = await testApp.app
        .get(DataSource)
        .getRepository(Pass)
        .findOneByOrFail({ id: pass.id });
      expect(after.version).toBe(before.version + 1);
      expect(after.updatedTime.getTime()).toBeGreaterThan(before.updatedTime.getTime());
    });
  });
});
