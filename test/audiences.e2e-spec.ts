import { ServiceEvents, type RecordedEvent } from '@app/core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

interface HolderBody {
  id: string;
  externalId: string;
  tags: string[];
  attributes: Record<string, string | number | boolean>;
  fieldValues: Record<string, string>;
  status: string;
}

interface Size {
  holders: number;
  walletADevices: number;
  walletBObjects: number;
}

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '100' },
  secondaryFields: [
    { key: 'name', label: 'Name', value: '' },
    { key: 'since', label: 'Member since', value: '' },
  ],
  qrUrl: 'https://brand.example/member',
};

/**
 * Audiences: holders' tags and attributes, the condition tree and every
 * operator, segments, sizes and the holder list's filters, with their 400s and isolation.
 */
describe('Audiences', () => {
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

  async function createPass(): Promise<string> {
    const response = await http()
      .post('/v1/wallet-pass')
      .set(auth())
      .send({
        passName: `Audience pass ${++counter}`,
        passMetadata: METADATA,
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201);
    return (response.body as { id: string }).id;
  }

  const holders = (passId: string) => `/v1/wallet-pass/${passId}/holders`;
  const createHolder = async (passId: string, body: object): Promise<HolderBody> =>
    (await http().post(holders(passId)).set(auth()).send(body).expect(201)).body as HolderBody;
  const size = async (passId: string, audience: object): Promise<Size> =>
    (
      await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({ audience })
        .expect(200)
    ).body as Size;
  /** The externalIds an audience matches, through a segment and the holder list's filter. */
  async function matched(passId: string, audience: object): Promise<string[]> {
    const segment = await http()
      .post(`/v1/wallet-pass/${passId}/segments`)
      .set(auth())
      .send({ name: `segment ${++counter}`, audience })
      .expect(201);
    const list = await http()
      .get(holders(passId))
      .query({ segmentId: (segment.body as { id: string }).id })
      .set(auth())
      .expect(200);
    const ids = (list.body as { items: HolderBody[] }).items.map((holder) => holder.externalId);
    expect((await size(passId, audience)).holders).toBe(ids.length);
    return ids.sort();
  }

  describe('holder data for targeting', () => {
    it('keeps tags sorted without repeats and attributes typed; PATCH replaces tags and merges attributes', async () => {
      const passId = await createPass();
      const holder = await createHolder(passId, {
        externalId: 'm-1',
        tags: ['zurich', 'gold', 'gold'],
        attributes: { city: 'Zurich', spend: 1240.5, newsletter: true },
      });
      expect(holder.tags).toEqual(['gold', 'zurich']);
      expect(holder.attributes).toEqual({ city: 'Zurich', spend: 1240.5, newsletter: true });

      const patched = await http()
        .patch(`${holders(passId)}/${holder.id}`)
        .set(auth())
        .send({ tags: ['silver'], attributes: { spend: 99, newsletter: null, tier: 'silver' } })
        .expect(200);
      expect(patched.body).toMatchObject({
        tags: ['silver'],
        attributes: { city: 'Zurich', spend: 99, tier: 'silver' },
      });
      expect((patched.body as HolderBody).attributes).not.toHaveProperty('newsletter');
      const read = await http()
        .get(`${holders(passId)}/${holder.id}`)
        .set(auth())
        .expect(200);
      expect(read.body).toEqual(patched.body);
    });

    it('changes no version and pushes nothing for tags and attributes: they are not on the pass', async () => {
      const passId = await createPass();
      const holder = await createHolder(passId, { externalId: 'm-1' });
      const version = async () =>
        (
          await testApp.app
            .get(DataSource)
            .query<{ version: number }[]>('SELECT version FROM holder WHERE id = ?', [holder.id])
        )[0].version;
      const before = await version();
      await http()
        .patch(`${holders(passId)}/${holder.id}`)
        .set(auth())
        .send({ tags: ['gold'], attributes: { tier: 'gold' } })
        .expect(200);
      expect(await version()).toBe(before);
    });

    it('refuses bad tags and attributes with the field named, writing nothing', async () => {
      const passId = await createPass();
      const bad = await http()
        .post(holders(passId))
        .set(auth())
        .send({
          externalId: 'm-1',
          tags: ['ok', 'not ok', 'x'.repeat(65)],
          attributes: { '1bad': 'x', long: 'y'.repeat(256), nested: { a: 1 }, fine: 1 },
        })
        .expect(400);
      expect(bad.body.context).toMatchObject({
        'tags.1': expect.any(String),
        'tags.2': expect.any(String),
        'attributes.1bad': expect.any(String),
        'attributes.long': expect.any(String),
        'attributes.nested': expect.any(String),
      });
      const tooMany = await http()
        .post(holders(passId))
        .set(auth())
        .send({ externalId: 'm-1', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) })
        .expect(400);
      expect(tooMany.body.context).toEqual({ tags: 'must have at most 50 different tags' });
      const list = await http().get(holders(passId)).set(auth()).expect(200);
      expect(list.body.items).toHaveLength(0);

      const holder = await createHolder(passId, {
        externalId: 'm-2',
        attributes: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, i])),
      });
      const over = await http()
        .patch(`${holders(passId)}/${holder.id}`)
        .set(auth())
        .send({ attributes: { one: 'more' } })
        .expect(400);
      expect(over.body.context).toEqual({ attributes: 'must have at most 50 keys' });
    });

    it('imports tags and attributes from JSON and CSV; an import changes them as a PATCH does', async () => {
      const passId = await createPass();
      await http()
        .post(`${holders(passId)}/import`)
        .set(auth())
        .send([
          { externalId: 'm-1', tags: ['gold'], attributes: { city: 'Zurich' } },
          { externalId: 'm-2' },
        ])
        .expect(200);
      const csv =
        'externalId,points,tags,attr.spend,attr.vip,attr.city,attr.code\n' +
        'm-1,500,gold|zurich,1200,true,,007\n' +
        'm-3,20,,12.5,false,Basel,x\n';
      const imported = await http()
        .post(`${holders(passId)}/import`)
        .set(auth())
        .attach('file', Buffer.from(csv), 'holders.csv')
        .expect(200);
      expect(imported.body).toEqual({ created: 1, updated: 1 });
      const list = await http().get(holders(passId)).set(auth()).expect(200);
      const byId = new Map(
        (list.body.items as HolderBody[]).map((holder) => [holder.externalId, holder]),
      );
      // An empty attribute cell removes the key; `007` is no JSON number, so it stays text.
      expect(byId.get('m-1')).toMatchObject({
        tags: ['gold', 'zurich'],
        attributes: { spend: 1200, vip: true, code: '007' },
        fieldValues: { points: '500' },
      });
      expect(byId.get('m-1')!.attributes).not.toHaveProperty('city');
      expect(byId.get('m-2')).toMatchObject({ tags: [], attributes: {} });
      expect(byId.get('m-3')).toMatchObject({
        tags: [],
        attributes: { spend: 12.5, vip: false, city: 'Basel', code: 'x' },
      });

      const badColumn = await http()
        .post(`${holders(passId)}/import`)
        .set(auth())
        .attach('file', Buffer.from('externalId,attr.9x\nm-9,1\n'), 'holders.csv')
        .expect(400);
      expect(badColumn.body.context['line 1']).toContain('attr.9x');
      const badRow = await http()
        .post(`${holders(passId)}/import`)
        .set(auth())
        .send([{ externalId: 'm-9', tags: ['bad tag'] }])
        .expect(400);
      expect(badRow.body.context).toHaveProperty(['0.tags.0']);
    });

    it('tells webhooks the tags and attributes in holder events', async () => {
      const passId = await createPass();
      const seen: RecordedEvent[] = [];
      testApp.app.get(ServiceEvents).listen((_manager, events) => {
        seen.push(...events);
        return Promise.resolve();
      });
      const holder = await createHolder(passId, { externalId: 'm-1', tags: ['gold'] });
      await http()
        .patch(`${holders(passId)}/${holder.id}`)
        .set(auth())
        .send({ attributes: { tier: 'gold' } })
        .expect(200);
      const data = seen
        .filter((event) => event.type.startsWith('holder.') && event.data.passId === passId)
        .map((event) => [event.type, event.data]);
      expect(data).toEqual([
        ['holder.created', expect.objectContaining({ tags: ['gold'], attributes: {} })],
        [
          'holder.updated',
          expect.objectContaining({ tags: ['gold'], attributes: { tier: 'gold' } }),
        ],
      ]);
    });
  });

  describe('conditions', () => {
    let passId: string;

    beforeAll(async () => {
      passId = await createPass();
      const rows = [
        {
          externalId: 'ana',
          tags: ['gold', 'zurich'],
          attributes: { city: 'Zurich', spend: 1200, vip: true, joined: '2024-03-01' },
          fieldValues: { points: '1200', name: 'Ana' },
        },
        {
          externalId: 'ben',
          tags: ['silver'],
          attributes: { city: 'Basel', spend: '399', vip: false },
          fieldValues: { points: '399', name: 'Ben' },
        },
        {
          externalId: 'cem',
          tags: ['gold'],
          attributes: { city: 'zurich', spend: 50 },
          fieldValues: { name: 'Cem' },
        },
        { externalId: 'dan', attributes: { city: "O'Brien; DROP TABLE holder; --" } },
      ];
      await http()
        .post(`${holders(passId)}/import`)
        .set(auth())
        .send(rows)
        .expect(200);
    });

    const cases: [string, object, string[]][] = [
      ['a tag', { tag: 'gold' }, ['ana', 'cem']],
      ['all', { all: [{ tag: 'gold' }, { tag: 'zurich' }] }, ['ana']],
      ['any', { any: [{ tag: 'silver' }, { tag: 'zurich' }] }, ['ana', 'ben']],
      ['not', { not: { tag: 'gold' } }, ['ben', 'dan']],
      ['eq text, case-sensitive', { attribute: 'city', eq: 'Zurich' }, ['ana']],
      ['eq number', { attribute: 'spend', eq: 1200 }, ['ana']],
      ['eq boolean', { attribute: 'vip', eq: false }, ['ben']],
      [
        'ne: a holder without the value matches',
        { attribute: 'vip', ne: true },
        ['ben', 'cem', 'dan'],
      ],
      ['in', { attribute: 'city', in: ['Basel', 'zurich', 42] }, ['ben', 'cem']],
      [
        'gt number: a decimal text counts as its number',
        { attribute: 'spend', gt: 100 },
        ['ana', 'ben'],
      ],
      ['gte', { attribute: 'spend', gte: 399 }, ['ana', 'ben']],
      ['lt', { attribute: 'spend', lt: 399 }, ['cem']],
      ['lte', { attribute: 'spend', lte: 399 }, ['ben', 'cem']],
      ['ISO dates order as text', { attribute: 'joined', gt: '2024-01-01' }, ['ana']],
      ['exists', { attribute: 'vip', exists: true }, ['ana', 'ben']],
      ['exists false', { attribute: 'vip', exists: false }, ['cem', 'dan']],
      ['contains, case-insensitive', { attribute: 'city', contains: 'ZUR' }, ['ana', 'cem']],
      ['a face field compares its text as a number', { field: 'points', gt: 399 }, ['ana']],
      [
        'the pass’s value counts for holders without one',
        { field: 'points', lt: 399 },
        ['cem', 'dan'],
      ],
      [
        'a holder without a face field value has the pass’s',
        { field: 'points', eq: '100' },
        ['cem', 'dan'],
      ],
      ['a face field value of the holder', { field: 'name', eq: 'Ben' }, ['ben']],
      [
        'a face field without value anywhere',
        { field: 'since', exists: false },
        ['ana', 'ben', 'cem', 'dan'],
      ],
      ['installed none', { installed: 'none' }, ['ana', 'ben', 'cem', 'dan']],
      ['installed any', { installed: 'any' }, []],
      ['created after', { createdAfter: '2000-01-01T00:00:00Z' }, ['ana', 'ben', 'cem', 'dan']],
      ['created before', { createdBefore: '2000-01-01T00:00:00Z' }, []],
      [
        'text stays text, bound not spliced',
        { attribute: 'city', eq: "O'Brien; DROP TABLE holder; --" },
        ['dan'],
      ],
      [
        'SQL in a contains value is only text',
        { any: [{ tag: 'silver' }, { attribute: 'city', contains: '; DROP' }] },
        ['ben', 'dan'],
      ],
    ];

    it.each(cases)('%s', async (_name, audience, expected) => {
      expect(await matched(passId, audience)).toEqual(expected);
    });

    it('matches Active holders only unless a status is named', async () => {
      const voidPass = await createPass();
      const voided = await createHolder(voidPass, { externalId: 'gone', tags: ['gold'] });
      await createHolder(voidPass, { externalId: 'here', tags: ['gold'] });
      await http()
        .delete(`${holders(voidPass)}/${voided.id}`)
        .set(auth())
        .expect(204);
      expect(await matched(voidPass, { tag: 'gold' })).toEqual(['here']);
      expect(await matched(voidPass, { all: [{ tag: 'gold' }, { status: 'Voided' }] })).toEqual([
        'gone',
      ]);
    });

    it('counts holders, devices and objects', async () => {
      expect(await size(passId, { tag: 'gold' })).toEqual({
        holders: 2,
        walletADevices: 0,
        walletBObjects: 0,
      });
    });
  });

  describe('malformed audiences', () => {
    let passId: string;
    beforeAll(async () => {
      passId = await createPass();
    });
    const refused = async (audience: unknown) =>
      (
        await http()
          .post(`/v1/wallet-pass/${passId}/audience`)
          .set(auth())
          .send({ audience })
          .expect(400)
      ).body.context as Record<string, string>;

    it('names the path of each bad node', async () => {
      expect(
        await refused({ all: [{ tag: 'gold' }, { tag: 'ok' }, { attribute: 'spend', gte: true }] }),
      ).toEqual({ 'audience.all.2.gte': expect.any(String) });
      expect(await refused({ any: [{ field: 'nope', eq: 'x' }] })).toEqual({
        'audience.any.0.field': expect.stringContaining('points, name, since'),
      });
      expect(await refused({ tag: 'gold', not: { tag: 'x' } })).toHaveProperty(['audience']);
      expect(await refused({ attribute: 'spend', gt: 1, lt: 2 })).toHaveProperty(['audience']);
      expect(await refused({ attribute: 'spend', like: 'x' })).toEqual({
        'audience.like': expect.any(String),
      });
      expect(await refused({ attribute: 'spend', in: [] })).toEqual({
        'audience.in': expect.any(String),
      });
      expect(await refused({ attribute: 'city', in: [{ a: 1 }] })).toEqual({
        'audience.in.0': expect.any(String),
      });
      expect(await refused({ installed: 'phone' })).toEqual({
        'audience.installed': expect.any(String),
      });
      expect(await refused({ createdAfter: 'yesterday' })).toEqual({
        'audience.createdAfter': expect.any(String),
      });
      expect(await refused({ all: [] })).toEqual({ 'audience.all': expect.any(String) });
      expect(await refused({ not: { tag: "x' OR 1=1 --" } })).toEqual({
        'audience.not.tag': expect.any(String),
      });
    });

    it('refuses more than 100 nodes and more than 6 levels', async () => {
      const wide = { any: Array.from({ length: 100 }, () => ({ tag: 'gold' })) };
      expect(await refused(wide)).toEqual({ audience: expect.stringContaining('100') });
      const deep = { not: { not: { not: { not: { not: { not: { tag: 'gold' } } } } } } };
      expect(Object.values(await refused(deep))[0]).toContain('6');
      const five = { not: { not: { not: { not: { not: { tag: 'gold' } } } } } };
      await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({ audience: five })
        .expect(200);
    });

    it('takes an in list of 1,000 values on every route, and bounds the whole audience', async () => {
      const cities = Array.from({ length: 999 }, (_, index) => `City ${index}`);
      const audience = { attribute: 'city', in: [...cities, 'Zurich'] };
      await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({ audience })
        .expect(200);
      await http()
        .post(`/v1/wallet-pass/${passId}/segments`)
        .set(auth())
        .send({ name: 'A thousand cities', audience })
        .expect(201);
      expect(await refused({ attribute: 'city', in: [...cities, 'a', 'b'] })).toEqual({
        'audience.in': expect.stringContaining('1000'),
      });
      const overFiveThousand = {
        any: [
          ...Array.from({ length: 5 }, () => ({ attribute: 'city', in: [...cities, 'Zurich'] })),
          { attribute: 'city', in: ['Bern', 'Basel'] },
        ],
      };
      expect(await refused(overFiveThousand)).toEqual({
        audience: expect.stringContaining('5000'),
      });
      const elevenScans = {
        all: Array.from({ length: 11 }, (_, index) => ({
          attribute: 'city',
          contains: `${index}`,
        })),
      };
      expect(await refused(elevenScans)).toEqual({ audience: expect.stringContaining('contains') });
    });

    it('takes exactly one of audience and segmentId', async () => {
      const none = await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({})
        .expect(400);
      expect(none.body.context).toHaveProperty(['audience']);
      await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({ audience: { tag: 'a' }, segmentId: 'x' })
        .expect(400);
    });
  });

  describe('segments', () => {
    it('creates, lists, reads, renames and deletes; names are unique per pass', async () => {
      const passId = await createPass();
      const otherPass = await createPass();
      const base = `/v1/wallet-pass/${passId}/segments`;
      const created = await http()
        .post(base)
        .set(auth())
        .send({ name: 'Gold in Zurich', audience: { all: [{ tag: 'gold' }, { tag: 'zurich' }] } })
        .expect(201);
      const segment = created.body as { id: string; passId: string; name: string };
      expect(segment).toMatchObject({ passId, name: 'Gold in Zurich' });
      await http()
        .post(base)
        .set(auth())
        .send({ name: 'Gold in Zurich', audience: { tag: 'x' } })
        .expect(409);
      await http()
        .post(`/v1/wallet-pass/${otherPass}/segments`)
        .set(auth())
        .send({ name: 'Gold in Zurich', audience: { tag: 'x' } })
        .expect(201);
      await http()
        .post(base)
        .set(auth())
        .send({ name: 'Bad', audience: { field: 'nope', exists: true } })
        .expect(400);
      const list = await http().get(base).set(auth()).expect(200);
      expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([segment.id]);
      await http().get(`${base}/${segment.id}`).set(auth()).expect(200);
      await http()
        .get(`/v1/wallet-pass/${otherPass}/segments/${segment.id}`)
        .set(auth())
        .expect(404);
      const renamed = await http()
        .patch(`${base}/${segment.id}`)
        .set(auth())
        .send({ name: 'Gold', audience: { tag: 'gold' } })
        .expect(200);
      expect(renamed.body).toMatchObject({ name: 'Gold', audience: { tag: 'gold' } });
      await createHolder(passId, { externalId: 'g', tags: ['gold'] });
      const counted = await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(auth())
        .send({ segmentId: segment.id })
        .expect(200);
      expect(counted.body).toEqual({ holders: 1, walletADevices: 0, walletBObjects: 0 });
      await http().delete(`${base}/${segment.id}`).set(auth()).expect(204);
      await http().get(`${base}/${segment.id}`).set(auth()).expect(404);
    });

    it("hides another workspace's pass and segment (404)", async () => {
      const passId = await createPass();
      const segment = await http()
        .post(`/v1/wallet-pass/${passId}/segments`)
        .set(auth())
        .send({ name: 'Gold', audience: { tag: 'gold' } })
        .expect(201);
      const otherWorkspace = await owner.createWorkspace();
      const other = { ...auth(), 'x-workspace-id': otherWorkspace };
      const path = `/v1/wallet-pass/${passId}/segments/${(segment.body as { id: string }).id}`;
      await http().get(path).set(other).expect(404);
      await http().patch(path).set(other).send({ name: 'x' }).expect(404);
      await http().delete(path).set(other).expect(404);
      await http()
        .post(`/v1/wallet-pass/${passId}/audience`)
        .set(other)
        .send({ audience: { tag: 'gold' } })
        .expect(404);
      await http().get(path).set(auth()).expect(200);
    });
  });

  describe('the holder list', () => {
    it('filters by every tag given and by a segment', async () => {
      const passId = await createPass();
      await createHolder(passId, { externalId: 'a', tags: ['gold', 'zurich'] });
      await createHolder(passId, { externalId: 'b', tags: ['gold'] });
      await createHolder(passId, { externalId: 'c', tags: ['zurich'] });
      const list = async (query: string) =>
        (
          (
            await http()
              .get(`${holders(passId)}?${query}`)
              .set(auth())
              .expect(200)
          ).body as {
            items: HolderBody[];
          }
        ).items
          .map((holder) => holder.externalId)
          .sort();
      expect(await list('tag=gold')).toEqual(['a', 'b']);
      expect(await list('tag=gold&tag=zurich')).toEqual(['a']);
      expect(await list('tag=gold,zurich')).toEqual(['a']);
      await http()
        .get(`${holders(passId)}?tag=bad%20tag`)
        .set(auth())
        .expect(400);
      await http()
        .get(`${holders(passId)}?segmentId=019a2b3c-0000-7f60-8a1b-2c3d4e5f6a7b`)
        .set(auth())
        .expect(404);
    });
  });
});
