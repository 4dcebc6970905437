import { newId, stampCreated } from '@app/core';
import { Pass } from '@app/passes';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

describe('Paging over 1,000 passes', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let workspaceId: string;
  const inserted: string[] = [];

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
    workspaceId = await owner.createWorkspace('Thousand');
    const accounts = await request(testApp.server)
      .get('/v1/accounts')
      .set(owner.auth)
      .set('x-workspace-id', workspaceId)
      .expect(200);
    const accountId = accounts.body.items[0].id as string;

    // Seeded straight into the table (the API path is covered elsewhere); ids are made the
    // way the service makes them, so their order is creation order.
    const repository = testApp.app.get(DataSource).getRepository(Pass);
    for (let batch = 0; batch < 10; batch++) {
      const rows = Array.from({ length: 100 }, (_, i) => {
        const id = newId();
        inserted.push(id);
        return stampCreated(
          repository.create({
            id,
            workspaceId,
            accountId,
            passName: `Bulk ${batch * 100 + i}`,
            nameKey: `bulk ${batch * 100 + i}`,
            passMetadata: { description: 'd', organizationName: 'o' },
            notificationHeader: null,
            status: 'Draft',
            slug: `bulk-${id}`,
            uploadInfoList: [],
            deletedTime: null,
          }),
          null,
        );
      });
      await repository.insert(rows);
    }
  });
  afterAll(() => testApp.close());

  it('returns each pass exactly once, newest first, while passes are created between pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> =
        cursor === null ? { limit: 20 } : { limit: 20, cursor };
      const page: request.Response = await request(testApp.server)
        .get('/v1/wallet-pass')
        .query({ ...query, summary: true })
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .expect(200);
      expect(page.body.items.length).toBeLessThanOrEqual(20);
      seen.push(...page.body.items.map((item: { id: string }) => item.id));
      cursor = page.body.cursor;
      pages += 1;
      if (pages % 10 === 0) {
        await request(testApp.server)
          .post('/v1/wallet-pass')
          .set(owner.auth)
          .set('x-workspace-id', workspaceId)
          .send({
            passName: `Created while paging ${pages}`,
            passMetadata: { description: 'd', organizationName: 'o' },
          })
          .expect(201);
      }
    } while (cursor !== null);

    expect(pages).toBe(50);
    expect(new Set(seen).size).toBe(1000);
    expect(seen).toEqual([...inserted].reverse());
  });
});
