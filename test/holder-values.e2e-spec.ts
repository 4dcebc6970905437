import { ServiceEvents, type RecordedEvent } from '@app/core';
import request from 'supertest';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';
import { waitFor } from './support/walleta-env';

interface HolderBody {
  id: string;
  externalId: string;
  fieldValues: Record<string, string>;
  attributes: Record<string, string | number | boolean>;
  tags: string[];
}

interface BulkChangeBody {
  id: string;
  status: string;
  matched: number | null;
  updated: number;
  skipped: number;
}

interface ErrorBody {
  errorCode: string;
  context?: Record<string, string>;
}

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '0' },
  secondaryFields: [{ key: 'balance', label: 'Balance', value: '0.1' }],
  qrUrl: 'https://brand.example/member',
};

/** Every attribute key that names a member of Object.prototype, and `prototype`. */
const PROTOTYPE_KEYS = [
  ...Object.getOwnPropertyNames(Object.prototype).filter((key) => /^[A-Za-z]\w*$/.test(key)),
  'prototype',
];

/** A face field value as the holder page shows it: its label and its value. */
function pageField(html: string, key: string): [string, string] | undefined {
  const match = new RegExp(
    `data-key="${key}">\\s*<dt class="label">([^<]*)</dt>\\s*<dd class="value">([^<]*)</dd>`,
  ).exec(html);
  return match ? [match[1], match[2]] : undefined;
}

/**
 * The values holders carry, at their edges, through the real HTTP app and its worker: bulk
 * increments that stay exact beyond what a binary number holds, and keys named like members of
 * Object.prototype (`constructor`, `valueOf`, ...), which are keys like any other.
 */
describe(`Holder values at their edges (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];
  let counter = 0;
  const events: RecordedEvent[] = [];

  beforeAll(async () => {
    testApp = await startTestApp({ SCHEDULER_INTERVAL_MS: '100' });
    testApp.app.get(ServiceEvents).listen((_manager, recorded) => {
      events.push(...recorded);
      return Promise.resolve();
    });
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const name of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName: name, uploadKey: await owner.upload(makePng(), name) });
    }
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  async function createPass(passMetadata: object = METADATA): Promise<string> {
    return (await createPassWithSlug(passMetadata)).id;
  }

  async function createPassWithSlug(passMetadata: object): Promise<{ id: string; slug: string }> {
    const response = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: `Values pass ${++counter}`,
        passMetadata,
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201);
    return response.body as { id: string; slug: string };
  }

  const holdersPath = (passId: string) => `/v1/wallet-pass/${passId}/holders`;
  const createHolder = async (passId: string, body: object): Promise<HolderBody> =>
    (await http().post(holdersPath(passId)).set(owner.auth).send(body).expect(201))
      .body as HolderBody;
  const readHolder = async (passId: string, id: string): Promise<HolderBody> =>
    (
      await http()
        .get(`${holdersPath(passId)}/${id}`)
        .set(owner.auth)
        .expect(200)
    ).body as HolderBody;
  const sizeOf = async (passId: string, audience: object): Promise<number> =>
    (
      (
        await http()
          .post(`/v1/wallet-pass/${passId}/audience`)
          .set(owner.auth)
          .send({ audience })
          .expect(200)
      ).body as { holders: number }
    ).holders;

  /** Makes a bulk change and waits until the worker finished it. */
  async function bulk(passId: string, body: object): Promise<BulkChangeBody> {
    const path = `${holdersPath(passId)}/bulk`;
    const created = (await http().post(path).set(owner.auth).send(body).expect(202))
      .body as BulkChangeBody;
    let read = created;
    await waitFor(async () => {
      read = (await http().get(`${path}/${created.id}`).set(owner.auth).expect(200))
        .body as BulkChangeBody;
      return read.status === 'Done' || read.status === 'Failed';
    }, 'the bulk change to finish');
    return read;
  }

  describe('bulk increments', () => {
    let passId: string;
    let big: HolderBody;
    let full: HolderBody;

    beforeAll(async () => {
      passId = await createPass();
      big = await createHolder(passId, {
        externalId: 'big',
        fieldValues: { points: '9007199254740993' },
        attributes: { visits: 9007199254740991, spend: '12.50', ratio: 0.1 },
      });
      // Thirty digits: the most a decimal text has before its point.
      full = await createHolder(passId, {
        externalId: 'full',
        fieldValues: { points: '9'.repeat(30) },
      });
    });

    it('adds exactly beyond the integers a binary number holds', async () => {
      const change = await bulk(passId, {
        holderIds: [big.id],
        increment: { points: 1, balance: 0.2, visits: 2, spend: 1, ratio: 0.2 },
      });
      expect(change).toMatchObject({ status: 'Done', matched: 1, updated: 1, skipped: 0 });
      const holder = await readHolder(passId, big.id);
      // The field's own value and the pass's, each with the decimals of the more precise.
      expect(holder.fieldValues).toEqual({ points: '9007199254740994', balance: '0.3' });
      // No number holds 9007199254740993: the attribute keeps the exact sum as its text.
      expect(holder.attributes).toEqual({ visits: '9007199254740993', spend: 13.5, ratio: 0.3 });
      // ... which audiences still compare as a number.
      expect(await sizeOf(passId, { attribute: 'visits', gt: 9007199254740000 })).toBe(1);
    });

    it('writes a large sum out of exponent form, so that later increments still add', async () => {
      await bulk(passId, { holderIds: [big.id], increment: { points: 1e21 } });
      // 1e21 + 9007199254740994, in digits.
      expect((await readHolder(passId, big.id)).fieldValues.points).toBe('1000009007199254740994');
      const again = await bulk(passId, { holderIds: [big.id], increment: { points: 1 } });
      expect(again).toMatchObject({ updated: 1, skipped: 0 });
      expect((await readHolder(passId, big.id)).fieldValues.points).toBe('1000009007199254740995');
      const between = {
        all: [
          { field: 'points', gt: 1e21 },
          { field: 'points', lt: 1e22 },
        ],
      };
      expect(await sizeOf(passId, between)).toBe(1);
    });

    it('skips a holder whose sum would have more than 30 digits, leaving its value', async () => {
      const change = await bulk(passId, { holderIds: [big.id, full.id], increment: { points: 1 } });
      expect(change).toMatchObject({ status: 'Done', matched: 2, updated: 1, skipped: 1 });
      expect((await readHolder(passId, full.id)).fieldValues.points).toBe('9'.repeat(30));
      expect((await readHolder(passId, big.id)).fieldValues.points).toBe('1000009007199254740996');
    });

    it('refuses an increment beyond 30 digits before or after the point', async () => {
      for (const by of [1e30, 1e-31, Number.MAX_VALUE]) {
        const response = await http()
          .post(`${holdersPath(passId)}/bulk`)
          .set(owner.auth)
          .send({ holderIds: [big.id], increment: { points: by, visits: 1 } })
          .expect(400);
        const body = response.body as ErrorBody;
        expect(body.errorCode).toBe('INVALID_INPUT');
        expect(Object.keys(body.context ?? {})).toEqual(['increment.points']);
      }
    });
  });

  describe('keys named like members of Object.prototype', () => {
    const HOSTILE_METADATA = {
      ...METADATA,
      secondaryFields: [
        { key: 'constructor', label: 'Level', value: 'Basic' },
        { key: 'toString', label: 'Note', value: '-' },
      ],
      localizations: { de: { fields: { constructor: { label: 'Stufe' } } } },
    };
    // Texts and numbers; the audiences below look for these two.
    const chosen = new Map<string, string | number>([
      ['constructor', 'x'],
      ['valueOf', 1],
    ]);
    const attributes: Record<string, string | number | boolean> = Object.fromEntries(
      PROTOTYPE_KEYS.map((key, index) => [
        key,
        chosen.get(key) ?? (index % 2 === 0 ? `v${index}` : index),
      ]),
    );
    let pass: { id: string; slug: string };
    let created: HolderBody & { downloadUrl: string };

    beforeAll(async () => {
      pass = await createPassWithSlug(HOSTILE_METADATA);
    });

    it('stores every one as an attribute and a face field value, and answers them back', async () => {
      expect(PROTOTYPE_KEYS).toEqual(
        expect.arrayContaining(['constructor', 'valueOf', 'toString', 'hasOwnProperty']),
      );
      const since = events.length;
      created = (await createHolder(pass.id, {
        externalId: 'hostile',
        attributes,
        fieldValues: { constructor: 'Gold' },
      })) as typeof created;
      expect(created.attributes).toEqual(attributes);
      expect(Object.keys(created.attributes)).toEqual(Object.keys(attributes));
      expect(created.fieldValues).toEqual({ constructor: 'Gold' });
      const read = await readHolder(pass.id, created.id);
      expect(read.attributes).toEqual(attributes);
      expect(read.fieldValues).toEqual({ constructor: 'Gold' });
      // The holder.created webhook tells them too.
      const told = events.slice(since).find((event) => event.type === 'holder.created');
      expect(told?.data).toMatchObject({ attributes, fieldValues: { constructor: 'Gold' } });
      // The pass's translation of the field keyed constructor is kept, and shown.
      const stored = (await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200))
        .body as { passMetadata: typeof HOSTILE_METADATA };
      expect(stored.passMetadata.localizations).toEqual(HOSTILE_METADATA.localizations);
      const page = (
        await http()
          .get(new URL(created.downloadUrl).pathname)
          .set('Accept-Language', 'de')
          .expect(200)
      ).text;
      expect(pageField(page, 'constructor')).toEqual(['Stufe', 'Gold']);
      // A field the holder has no value of shows the pass's, not Object.prototype's.
      expect(pageField(page, 'toString')).toEqual(['Note', '-']);
    });

    it('finds the holder by them in an audience', async () => {
      expect(await sizeOf(pass.id, { attribute: 'constructor', eq: 'x' })).toBe(1);
      expect(await sizeOf(pass.id, { attribute: 'valueOf', eq: 1 })).toBe(1);
      expect(await sizeOf(pass.id, { attribute: 'hasOwnProperty', exists: true })).toBe(1);
      expect(await sizeOf(pass.id, { field: 'constructor', eq: 'Gold' })).toBe(1);
      // No holder has a toString field value of their own: the pass's is theirs.
      expect(await sizeOf(pass.id, { field: 'toString', eq: '-' })).toBe(1);
    });

    it('removes one on PATCH null and keeps the others', async () => {
      const patched = (
        await http()
          .patch(`${holdersPath(pass.id)}/${created.id}`)
          .set(owner.auth)
          .send({ attributes: { constructor: null, toString: 'patched' } })
          .expect(200)
      ).body as HolderBody;
      const others = Object.fromEntries(
        Object.entries(attributes).filter(([key]) => key !== 'constructor'),
      );
      expect(patched.attributes).toEqual({ ...others, toString: 'patched' });
      expect(Object.hasOwn(patched.attributes, 'constructor')).toBe(false);
      expect(await sizeOf(pass.id, { attribute: 'constructor', eq: 'x' })).toBe(0);
      expect(await sizeOf(pass.id, { attribute: 'constructor', exists: false })).toBe(1);
      expect(await sizeOf(pass.id, { attribute: 'toString', eq: 'patched' })).toBe(1);
    });

    it('bulk-sets and bulk-increments them', async () => {
      const change = await bulk(pass.id, {
        holderIds: [created.id],
        set: { attributes: { constructor: 'again' }, fieldValues: { toString: 'Note!' } },
        increment: { valueOf: 2 },
      });
      expect(change).toMatchObject({ status: 'Done', matched: 1, updated: 1, skipped: 0 });
      const holder = await readHolder(pass.id, created.id);
      expect(holder.attributes).toMatchObject({ constructor: 'again', valueOf: 3 });
      expect(holder.fieldValues).toEqual({ constructor: 'Gold', toString: 'Note!' });
      expect(await sizeOf(pass.id, { attribute: 'valueOf', eq: 3 })).toBe(1);
      // A holder without the attribute has no number to add to (not Object.prototype's).
      const other = await createHolder(pass.id, { externalId: 'plain' });
      const skipped = await bulk(pass.id, {
        holderIds: [other.id],
        increment: { isPrototypeOf: 1 },
      });
      expect(skipped).toMatchObject({ status: 'Done', updated: 0, skipped: 1 });
    });

    it('imports them from JSON and CSV', async () => {
      await http()
        .post(`${holdersPath(pass.id)}/import`)
        .set(owner.auth)
        .send([{ externalId: 'json', attributes: { constructor: 'j', hasOwnProperty: 2 } }])
        .expect(200);
      const csv =
        'externalId,attr.constructor,attr.isPrototypeOf,constructor,toString\n' +
        'csv,c,true,Silver,\n' +
        // The row names hostile without a toString value: it goes back to the pass's.
        'hostile,,,Gold,\n';
      await http()
        .post(`${holdersPath(pass.id)}/import`)
        .set(owner.auth)
        .attach('file', Buffer.from(csv, 'utf8'), 'holders.csv')
        .expect(200);
      const page = (
        await http()
          .get(`${holdersPath(pass.id)}?limit=20`)
          .set(owner.auth)
          .expect(200)
      ).body as { items: HolderBody[] };
      const byId = Object.fromEntries(page.items.map((holder) => [holder.externalId, holder]));
      expect(byId.json.attributes).toEqual({ constructor: 'j', hasOwnProperty: 2 });
      expect(byId.csv.attributes).toEqual({ constructor: 'c', isPrototypeOf: true });
      expect(byId.csv.fieldValues).toEqual({ constructor: 'Silver' });
      expect(byId.hostile.fieldValues).toEqual({ constructor: 'Gold' });
      expect(await sizeOf(pass.id, { attribute: 'constructor', exists: true })).toBe(2);
    });

    it('refuses __proto__ as a key (400), and pollutes nothing', async () => {
      const response = await http()
        .post(holdersPath(pass.id))
        .set(owner.auth)
        .set('Content-Type', 'application/json')
        .send('{"externalId": "proto", "attributes": {"__proto__": {"polluted": true}}}')
        .expect(400);
      expect(response.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { 'attributes.__proto__': expect.stringContaining('not an attribute key') },
      });
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    });
  });
});
