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

/**
 * The values holders carry, at their edges, through the real HTTP app and its worker: bulk
 * increments that stay exact beyond what a binary number holds.
 */
describe(`Holder values at their edges (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];
  let counter = 0;

  beforeAll(async () => {
    testApp = await startTestApp({ SCHEDULER_INTERVAL_MS: '100' });
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const name of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName: name, uploadKey: await owner.upload(makePng(), name) });
    }
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);

  async function createPass(passMetadata: object = METADATA): Promise<string> {
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
    return (response.body as { id: string }).id;
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
});
