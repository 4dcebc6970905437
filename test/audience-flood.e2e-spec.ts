import request from 'supertest';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '0' },
  qrUrl: 'https://brand.example/member',
};

const HOLDERS = 20_000;
/** Below the reads that may wait for a turn, so that none is refused for that. */
const FLOOD = 30;

/** The costliest audience the API takes: 10 `contains` tests, each a substring over every note. */
const COSTLY = {
  any: Array.from({ length: 10 }, (_, index) => ({ attribute: 'note', contains: `${index}` })),
};

/**
 * One workspace cannot stall another through audiences. A workspace floods the size route with
 * the costliest audience the API takes, over 20,000 holders; meanwhile another workspace lists
 * its holders, and every one of those answers comes within a second. On SQLite every statement
 * runs on the thread that calls it, so the counts run on a thread of their own (a list waiting
 * behind 30 of them would wait seconds); on MariaDB they take at most a quarter of the pool (with
 * all of it, a list waited out the 3 s to acquire a connection and answered 503).
 */
describe(`An audience flood (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let flooded: string;
  let quiet: { workspaceId: string; passId: string };

  const http = () => request(testApp.server);

  async function publishedPass(workspaceId: string, passName: string): Promise<string> {
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      uploadInfoList.push({
        fileName,
        uploadKey: await owner.upload(makePng(), fileName, { workspaceId }),
      });
    }
    return (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ passName, passMetadata: METADATA, status: 'Published', uploadInfoList })
        .expect(201)
    ).body.id as string;
  }

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    owner = await OwnerSession.start(testApp.server);
    flooded = await publishedPass(owner.defaultWorkspaceId, 'Flooded');
    for (let from = 0; from < HOLDERS; from += 10_000) {
      const rows = Array.from({ length: 10_000 }, (_, at) => ({
        externalId: `member-${from + at}`,
        attributes: { note: `member ${from + at} joined in spring, ${(from + at) * 7919} points` },
      }));
      await http()
        .post(`/v1/wallet-pass/${flooded}/holders/import`)
        .set(owner.auth)
        .send(rows)
        .expect(200);
    }
    const workspaceId = await owner.createWorkspace('Quiet');
    const passId = await publishedPass(workspaceId, 'Quiet');
    for (const externalId of ['a', 'b', 'c']) {
      await http()
        .post(`/v1/wallet-pass/${passId}/holders`)
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ externalId })
        .expect(201);
    }
    quiet = { workspaceId, passId };
  }, 180_000);
  afterAll(() => testApp.close());

  it("answers another workspace's holder list within a second while one floods the audience route", async () => {
    const size = () =>
      http()
        .post(`/v1/wallet-pass/${flooded}/audience`)
        .set(owner.auth)
        .send({ audience: COSTLY })
        .then((response) => response.status);
    let flooding = true;
    const flood = Promise.all(Array.from({ length: FLOOD }, size)).finally(() => {
      flooding = false;
    });
    const listTimes: number[] = [];
    do {
      const started = Date.now();
      const list = await http()
        .get(`/v1/wallet-pass/${quiet.passId}/holders`)
        .set(owner.auth)
        .set('x-workspace-id', quiet.workspaceId)
        .expect(200);
      listTimes.push(Date.now() - started);
      expect((list.body as { items: unknown[] }).items).toHaveLength(3);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (flooding);
    const statuses = await flood;
    // Each count is answered: counted, or 503 once it waited out its deadline for a turn.
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
    expect(listTimes.length).toBeGreaterThan(1);
    expect(Math.max(...listTimes)).toBeLessThan(1000);
  }, 120_000);
});
