import request from 'supertest';
import { DataSource } from 'typeorm';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

interface AutomationBody {
  id: string;
  passId: string;
  workspaceId: string;
  name: string;
  trigger: Record<string, unknown>;
  audience: Record<string, unknown> | null;
  actions: Record<string, unknown>[];
  enabled: boolean;
  runCount: number;
  skippedCount: number;
  failedCount: number;
  lastRunTime: string | null;
  createdTime: string;
  updatedTime: string;
  createdBy: string | null;
  updatedBy: string | null;
}

interface ErrorBody {
  errorCode: string;
  errorMessage?: string;
  context: Record<string, unknown>;
}

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '0' },
  secondaryFields: [{ key: 'name', label: 'Name', value: '' }],
  qrUrl: 'https://brand.example/member',
};

const WELCOME = {
  name: 'Welcome',
  trigger: { on: 'holder.created' },
  actions: [{ addTags: ['welcomed'] }, { notify: { message: 'Welcome, {{fieldValues.name}}!' } }],
};

/**
 * Automations of a pass as a resource: create, list, read, change and delete, names unique per
 * pass, at most 50 per pass, other workspaces kept out, and every bad input refused by its path
 * with nothing stored.
 */
describe('Automations', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];
  let counter = 0;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const name of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName: name, uploadKey: await owner.upload(makePng(), name) });
    }
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);
  const auth = () => owner.auth;
  const base = (passId: string) => `/v1/wallet-pass/${passId}/automations`;
  const stored = () => testApp.app.get(DataSource).query('SELECT id FROM automation');

  async function createPass(): Promise<string> {
    const response = await http()
      .post('/v1/wallet-pass')
      .set(auth())
      .send({
        passName: `Automation pass ${++counter}`,
        passMetadata: METADATA,
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201);
    return (response.body as { id: string }).id;
  }

  async function create(passId: string, body: object): Promise<AutomationBody> {
    const response = await http().post(base(passId)).set(auth()).send(body).expect(201);
    return response.body as AutomationBody;
  }

  describe('the resource', () => {
    it('creates, reads, lists, changes and deletes', async () => {
      const passId = await createPass();
      const created = await create(passId, WELCOME);
      expect(created).toEqual({
        id: expect.any(String),
        passId,
        workspaceId: expect.any(String),
        name: 'Welcome',
        trigger: { on: 'holder.created' },
        audience: null,
        actions: WELCOME.actions,
        enabled: true,
        runCount: 0,
        skippedCount: 0,
        failedCount: 0,
        lastRunTime: null,
        createdTime: expect.any(String),
        updatedTime: expect.any(String),
        createdBy: expect.any(String),
        updatedBy: expect.any(String),
      });
      const path = `${base(passId)}/${created.id}`;
      expect((await http().get(path).set(auth()).expect(200)).body).toEqual(created);
      const list = await http().get(base(passId)).set(auth()).expect(200);
      expect(list.body).toEqual({ items: [created], cursor: null, hasMore: false });

      const changed = await http()
        .patch(path)
        .set(auth())
        .send({
          name: 'Gold',
          trigger: { on: 'holder.entered' },
          audience: { attribute: 'points', gte: 1000 },
          actions: [{ notify: { message: 'Welcome to Gold' } }],
          enabled: false,
        })
        .expect(200);
      expect(changed.body).toMatchObject({
        id: created.id,
        name: 'Gold',
        trigger: { on: 'holder.entered' },
        audience: { attribute: 'points', gte: 1000 },
        actions: [{ notify: { message: 'Welcome to Gold' } }],
        enabled: false,
        createdTime: created.createdTime,
      });
      expect((await http().get(path).set(auth()).expect(200)).body).toEqual(changed.body);
      // An absent input is kept; the name alone changes.
      const renamed = await http().patch(path).set(auth()).send({ name: 'Gold tier' }).expect(200);
      expect(renamed.body).toMatchObject({ name: 'Gold tier', enabled: false });
      expect((renamed.body as AutomationBody).actions).toEqual(changed.body.actions);

      await http().delete(path).set(auth()).expect(204);
      await http().get(path).set(auth()).expect(404);
      await http().delete(path).set(auth()).expect(404);
    });

    it('takes every trigger and action shape, answered as kept', async () => {
      const passId = await createPass();
      const birthday = await create(passId, {
        name: 'Birthday',
        trigger: { on: 'date', attribute: 'birthday', time: '09:30', timeZone: 'europe/zurich' },
        actions: [
          {
            set: {
              fieldValues: { name: 'Birthday star', points: null },
              attributes: { vip: true },
            },
          },
          { increment: { points: 100, visits: 1.5 } },
          { removeTags: ['new', 'gold', 'gold'] },
          { notify: { message: 'x'.repeat(1000) } },
        ],
      });
      expect(birthday.trigger).toEqual({
        on: 'date',
        attribute: 'birthday',
        time: '09:30',
        timeZone: 'Europe/Zurich',
      });
      expect(birthday.actions).toEqual([
        {
          set: { fieldValues: { name: 'Birthday star', points: null }, attributes: { vip: true } },
        },
        { increment: { points: 100, visits: 1.5 } },
        { removeTags: ['gold', 'new'] },
        { notify: { message: 'x'.repeat(1000) } },
      ]);
      for (const on of ['holder.installed', 'holder.uninstalled']) {
        const automation = await create(passId, {
          name: on,
          trigger: { on },
          audience: { tag: 'gold' },
          actions: [{ addTags: ['seen'] }],
          enabled: false,
        });
        expect(automation).toMatchObject({
          trigger: { on },
          audience: { tag: 'gold' },
          enabled: false,
        });
      }
      await create(passId, {
        name: 'Midnight',
        trigger: { on: 'date', attribute: 'since', time: '23:59', timeZone: 'UTC' },
        actions: Array.from({ length: 10 }, (_, index) => ({ addTags: [`t${index}`] })),
      });
    });

    it('pages the list newest first, as the other lists do', async () => {
      const passId = await createPass();
      const ids: string[] = [];
      for (let index = 0; index < 5; index++) {
        ids.push((await create(passId, { ...WELCOME, name: `Rule ${index}` })).id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string | number> =
          cursor === null ? { limit: 2 } : { limit: 2, cursor };
        const page = await http().get(base(passId)).query(query).set(auth()).expect(200);
        const body = page.body as {
          items: AutomationBody[];
          cursor: string | null;
          hasMore: boolean;
        };
        expect(body.items.length).toBeLessThanOrEqual(2);
        expect(body.hasMore).toBe(body.cursor !== null);
        seen.push(...body.items.map((item) => item.id));
        cursor = body.cursor;
      } while (cursor !== null);
      expect(seen).toEqual([...ids].reverse());
    });

    it('keeps names unique per pass (409), on create and on rename', async () => {
      const passId = await createPass();
      const otherPass = await createPass();
      const first = await create(passId, WELCOME);
      const conflict = await http().post(base(passId)).set(auth()).send(WELCOME).expect(409);
      expect((conflict.body as ErrorBody).errorCode).toBe('CONFLICT');
      await create(otherPass, WELCOME);
      // Case-exact: another case is another name.
      const second = await create(passId, { ...WELCOME, name: 'welcome' });
      await http()
        .patch(`${base(passId)}/${second.id}`)
        .set(auth())
        .send({ name: 'Welcome' })
        .expect(409);
      await http()
        .patch(`${base(passId)}/${first.id}`)
        .set(auth())
        .send({ name: 'Welcome' })
        .expect(200);
      const names = (await http().get(base(passId)).set(auth()).expect(200)).body as {
        items: AutomationBody[];
      };
      expect(names.items.map((item) => item.name).sort()).toEqual(['Welcome', 'welcome']);
    });

    it('takes at most 50 automations per pass (409 CONFLICT with the limit)', async () => {
      const passId = await createPass();
      const otherPass = await createPass();
      const made: AutomationBody[] = [];
      for (let index = 0; index < 50; index++) {
        made.push(await create(passId, { ...WELCOME, name: `Rule ${index}` }));
      }
      const refused = await http()
        .post(base(passId))
        .set(auth())
        .send({ ...WELCOME, name: 'Rule 50' })
        .expect(409);
      expect(refused.body).toMatchObject({
        errorCode: 'CONFLICT',
        errorMessage: 'A pass can have at most 50 automations',
        context: { passId, limit: 50 },
      });
      await create(otherPass, { ...WELCOME, name: 'Rule 50' });
      await http()
        .delete(`${base(passId)}/${made[0].id}`)
        .set(auth())
        .expect(204);
      await create(passId, { ...WELCOME, name: 'Rule 50' });
    });

    it("hides another workspace's pass and automation (404)", async () => {
      const passId = await createPass();
      const automation = await create(passId, WELCOME);
      const otherWorkspace = await owner.createWorkspace();
      const other = { ...auth(), 'x-workspace-id': otherWorkspace };
      const path = `${base(passId)}/${automation.id}`;
      await http().get(path).set(other).expect(404);
      await http().patch(path).set(other).send({ name: 'x' }).expect(404);
      await http().delete(path).set(other).expect(404);
      await http().get(base(passId)).set(other).expect(404);
      await http().post(base(passId)).set(other).send(WELCOME).expect(404);
      // An automation under another pass of the same workspace is not found either.
      const otherPass = await createPass();
      await http()
        .get(`${base(otherPass)}/${automation.id}`)
        .set(auth())
        .expect(404);
      expect((await http().get(path).set(auth()).expect(200)).body).toEqual(automation);
    });
  });

  describe('bad input', () => {
    let passId: string;
    beforeAll(async () => {
      passId = await createPass();
    });

    const BAD: [string, object, string][] = [
      ['no trigger', { trigger: undefined }, 'trigger'],
      ['a trigger that is no object', { trigger: 'holder.created' }, 'trigger'],
      ['an unknown trigger', { trigger: { on: 'holder.deleted' } }, 'trigger.on'],
      ['a trigger without on', { trigger: {} }, 'trigger.on'],
      ['an unknown trigger key', { trigger: { on: 'holder.created', after: 5 } }, 'trigger.after'],
      ['holder.entered without an audience', { trigger: { on: 'holder.entered' } }, 'audience'],
      [
        'a date attribute out of the key pattern',
        { trigger: { on: 'date', attribute: '1st', time: '09:00', timeZone: 'UTC' } },
        'trigger.attribute',
      ],
      [
        'a date without attribute',
        { trigger: { on: 'date', time: '09:00', timeZone: 'UTC' } },
        'trigger.attribute',
      ],
      [
        'a time past 23:59',
        { trigger: { on: 'date', attribute: 'birthday', time: '24:00', timeZone: 'UTC' } },
        'trigger.time',
      ],
      [
        'a time without its leading zero',
        { trigger: { on: 'date', attribute: 'birthday', time: '9:00', timeZone: 'UTC' } },
        'trigger.time',
      ],
      [
        'an unknown time zone',
        { trigger: { on: 'date', attribute: 'birthday', time: '09:00', timeZone: 'Mars/Base' } },
        'trigger.timeZone',
      ],
      [
        'an offset for a time zone',
        { trigger: { on: 'date', attribute: 'birthday', time: '09:00', timeZone: '+01:00' } },
        'trigger.timeZone',
      ],
      [
        'an unknown date trigger key',
        {
          trigger: { on: 'date', attribute: 'b', time: '09:00', timeZone: 'UTC', every: 'day' },
        },
        'trigger.every',
      ],
      ['an audience that is no object', { audience: [{ tag: 'gold' }] }, 'audience'],
      [
        'a malformed audience',
        { audience: { all: [{ tag: 'gold' }, { bogus: 1 }] } },
        'audience.all.1',
      ],
      [
        'an audience naming a field the pass lacks',
        { audience: { field: 'tier', eq: 'x' } },
        'audience.field',
      ],
      ['no actions', { actions: undefined }, 'actions'],
      ['an empty action list', { actions: [] }, 'actions'],
      [
        'eleven actions',
        { actions: Array.from({ length: 11 }, () => ({ addTags: ['a'] })) },
        'actions',
      ],
      ['an action that is no object', { actions: ['addTags'] }, 'actions.0'],
      ['an empty action', { actions: [{}] }, 'actions.0'],
      ['two actions in one', { actions: [{ addTags: ['a'], removeTags: ['b'] }] }, 'actions.0'],
      [
        'an unknown action',
        { actions: [{ addTags: ['a'] }, { explode: true }] },
        'actions.1.explode',
      ],
      ['no tags to add', { actions: [{ addTags: [] }] }, 'actions.0.addTags'],
      ['tags that are no list', { actions: [{ removeTags: 'gold' }] }, 'actions.0.removeTags'],
      [
        'a tag out of its pattern',
        { actions: [{ addTags: ['ok', 'not ok'] }] },
        'actions.0.addTags.1',
      ],
      ['an empty set', { actions: [{ set: {} }] }, 'actions.0.set'],
      ['a set of nothing', { actions: [{ set: { fieldValues: {} } }] }, 'actions.0.set'],
      ['a set that is no object', { actions: [{ set: [] }] }, 'actions.0.set'],
      [
        'an unknown set key',
        { actions: [{ set: { barcodeText: 'x' } }] },
        'actions.0.set.barcodeText',
      ],
      [
        'set fieldValues that are no object',
        { actions: [{ set: { fieldValues: 'x' } }] },
        'actions.0.set.fieldValues',
      ],
      [
        'a field the pass lacks',
        { actions: [{ set: { fieldValues: { tier: 'Gold' } } }] },
        'actions.0.set.fieldValues.tier',
      ],
      [
        'a field value that is no text',
        { actions: [{ set: { fieldValues: { points: 5 } } }] },
        'actions.0.set.fieldValues.points',
      ],
      [
        'an attribute key out of its pattern',
        { actions: [{ set: { attributes: { '1st': 1 } } }] },
        'actions.0.set.attributes.1st',
      ],
      [
        'an attribute value that is an object',
        { actions: [{ set: { attributes: { a: {} } } }] },
        'actions.0.set.attributes.a',
      ],
      [
        'an empty increment',
        { actions: [{ addTags: ['a'] }, { removeTags: ['b'] }, { increment: {} }] },
        'actions.2.increment',
      ],
      ['an increment that is no object', { actions: [{ increment: 5 }] }, 'actions.0.increment'],
      [
        'an increment by no number',
        { actions: [{ increment: { points: '5' } }] },
        'actions.0.increment.points',
      ],
      [
        'an increment of neither a field nor an attribute key',
        { actions: [{ increment: { 'not a key': 1 } }] },
        'actions.0.increment.not a key',
      ],
      ['a notify that is no object', { actions: [{ notify: 'hi' }] }, 'actions.0.notify'],
      ['an empty message', { actions: [{ notify: { message: '' } }] }, 'actions.0.notify.message'],
      ['no message', { actions: [{ notify: {} }] }, 'actions.0.notify.message'],
      [
        'a message over 1,000 characters',
        { actions: [{ notify: { message: 'x'.repeat(1001) } }] },
        'actions.0.notify.message',
      ],
      [
        'an unknown notify key',
        { actions: [{ notify: { message: 'hi', title: 'x' } }] },
        'actions.0.notify.title',
      ],
      ['a name over 255 characters', { name: 'x'.repeat(256) }, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['enabled that is no boolean', { enabled: 'yes' }, 'enabled'],
    ];

    it.each(BAD)(
      'refuses %s (400 keyed by its path), storing nothing',
      async (_case, change, key) => {
        const before = await stored();
        const response = await http()
          .post(base(passId))
          .set(auth())
          .send({ ...WELCOME, ...change })
          .expect(400);
        const body = response.body as ErrorBody;
        expect(body.errorCode).toBe('INVALID_INPUT');
        expect(Object.keys(body.context)).toContain(key);
        expect(await stored()).toEqual(before);
      },
    );

    it('answers every problem of a body in one 400', async () => {
      const response = await http()
        .post(base(passId))
        .set(auth())
        .send({
          name: 'Many',
          trigger: { on: 'date', attribute: 'birthday', time: '25:00', timeZone: 'Nowhere' },
          audience: { field: 'tier', eq: 'x' },
          actions: [{ addTags: ['gold'] }, { explode: 1 }, { increment: { points: 'x' } }],
        })
        .expect(400);
      expect(Object.keys((response.body as ErrorBody).context).sort()).toEqual([
        'actions.1.explode',
        'actions.2.increment.points',
        'audience.field',
        'trigger.time',
        'trigger.timeZone',
      ]);
    });

    it('checks a PATCH as a create, against the automation as it would become', async () => {
      const automation = await create(passId, { ...WELCOME, name: 'Patched' });
      const path = `${base(passId)}/${automation.id}`;
      const refuse = async (body: object, key: string) => {
        const response = await http().patch(path).set(auth()).send(body).expect(400);
        expect(Object.keys((response.body as ErrorBody).context)).toContain(key);
      };
      await refuse({ trigger: { on: 'holder.entered' } }, 'audience');
      await refuse({ trigger: { on: 'holder.left' } }, 'trigger.on');
      await refuse(
        { actions: [{ increment: { tier: 1, points: 'x' } }] },
        'actions.0.increment.points',
      );
      await refuse({ actions: [] }, 'actions');
      await refuse({ audience: { field: 'tier', exists: true } }, 'audience.field');
      await refuse({ name: 'x'.repeat(256) }, 'name');
      expect((await http().get(path).set(auth()).expect(200)).body).toEqual(automation);

      const entered = await http()
        .patch(path)
        .set(auth())
        .send({ trigger: { on: 'holder.entered' }, audience: { tag: 'gold' } })
        .expect(200);
      expect(entered.body).toMatchObject({
        trigger: { on: 'holder.entered' },
        audience: { tag: 'gold' },
      });
      // The audience cannot go while holder.entered needs it; with another trigger it can.
      await refuse({ audience: null }, 'audience');
      const cleared = await http()
        .patch(path)
        .set(auth())
        .send({ trigger: { on: 'holder.created' }, audience: null })
        .expect(200);
      expect(cleared.body).toMatchObject({ trigger: { on: 'holder.created' }, audience: null });
    });
  });
});
