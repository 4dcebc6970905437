import { Notification } from '@app/notifications';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const METADATA = { description: 'd', organizationName: 'o' };

interface NotificationBody {
  id: string;
  passSerialNumber: string;
  notificationName: string;
  status: string;
  workspaceId: string;
}

interface PageBody {
  items: NotificationBody[];
  cursor: string | null;
  hasMore: boolean;
}

/**
 * GET /v1/wallet-pass/notifications. Only Draft and future Scheduled
 * notifications are created through the API, so no delivery changes a status under the test;
 * delivery statuses are written into the table directly.
 */
describe('Notification list', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let otherWorkspace: string;
  let passA: string;
  let passB: string;
  /** Oldest first, as created. */
  const created: NotificationBody[] = [];

  const http = () => request(testApp.server);
  const inWorkspace = (workspaceId?: string) =>
    workspaceId === undefined ? owner.auth : { ...owner.auth, 'x-workspace-id': workspaceId };

  let counter = 0;
  async function createPass(workspaceId?: string): Promise<string> {
    const response = await http()
      .post('/v1/wallet-pass')
      .set(inWorkspace(workspaceId))
      .send({ passName: `List pass ${++counter}`, passMetadata: METADATA })
      .expect(201);
    return (response.body as { id: string }).id;
  }

  async function createNotification(
    passId: string,
    notificationName: string,
    status: 'Draft' | 'Scheduled',
    workspaceId?: string,
  ): Promise<NotificationBody> {
    const scheduled =
      status === 'Scheduled'
        ? {
            notificationMessage: 'Later',
            scheduledTime: new Date(Date.now() + 24 * 3_600_000).toISOString(),
          }
        : {};
    const response = await http()
      .post('/v1/wallet-pass/notifications')
      .set(inWorkspace(workspaceId))
      .send({ passSerialNumber: passId, notificationName, status, ...scheduled })
      .expect(201);
    return response.body as NotificationBody;
  }

  const list = async (query: string, expected = 200, workspaceId?: string) =>
    (
      await http()
        .get(`/v1/wallet-pass/notifications${query}`)
        .set(inWorkspace(workspaceId))
        .expect(expected)
    ).body as PageBody;

  const idsOf = (page: PageBody) => page.items.map((item) => item.id);
  const newestFirst = (items: NotificationBody[]) => [...items].reverse().map((item) => item.id);

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
    otherWorkspace = await owner.createWorkspace();
    passA = await createPass();
    passB = await createPass();
    const names = ['Weekend PROMO', 'Spring sale', 'weekend promo 2', 'Reminder', '50%_off'];
    for (const [index, name] of names.entries()) {
      const status = index % 2 === 0 ? 'Draft' : 'Scheduled';
      created.push(await createNotification(index < 3 ? passA : passB, name, status));
    }
    // A delivery status no client can ask for.
    await testApp.app
      .get(DataSource)
      .getRepository(Notification)
      .update({ id: created[3].id }, { status: 'Failed' });
    created[3].status = 'Failed';

    const otherPass = await createPass(otherWorkspace);
    await createNotification(otherPass, 'Weekend promo elsewhere', 'Draft', otherWorkspace);
  });
  afterAll(() => testApp.close());

  it('is not taken for a pass id by GET /wallet-pass/{id}, and lists newest first', async () => {
    const page = await list('');
    expect(idsOf(page)).toEqual(newestFirst(created));
    expect(page).toMatchObject({ hasMore: false, cursor: null });
    expect(page.items[0]).toMatchObject({
      id: created[4].id,
      passSerialNumber: passB,
      notificationName: '50%_off',
      status: 'Draft',
      workspaceId: owner.defaultWorkspaceId,
      notificationMessage: null,
      scheduledTime: null,
      accountId: expect.any(String),
    });
    expect(page.items[0]).not.toHaveProperty('notificationStats');
  });

  it('filters by pass', async () => {
    expect(idsOf(await list(`?passSerialNumber=${passA}`))).toEqual(
      newestFirst(created.slice(0, 3)),
    );
    expect(idsOf(await list(`?passSerialNumber=${passB}`))).toEqual(newestFirst(created.slice(3)));
    expect(idsOf(await list('?passSerialNumber=no-such-pass'))).toEqual([]);
  });

  it('filters by any of several statuses, repeated or comma-separated', async () => {
    const scheduled = created.filter((item) => item.status === 'Scheduled');
    expect(idsOf(await list('?status=Scheduled'))).toEqual(newestFirst(scheduled));
    const scheduledOrFailed = created.filter((item) => item.status !== 'Draft');
    expect(idsOf(await list('?status=Scheduled&status=Failed'))).toEqual(
      newestFirst(scheduledOrFailed),
    );
    expect(idsOf(await list('?status=Scheduled,Failed'))).toEqual(newestFirst(scheduledOrFailed));
    expect(idsOf(await list('?status=Published'))).toEqual([]);
    // An empty list filters nothing, as on the other lists.
    expect(idsOf(await list('?status='))).toEqual(newestFirst(created));
  });

  it('searches names case-insensitively, with % and _ taken literally', async () => {
    const weekend = [created[0], created[2]];
    expect(idsOf(await list('?keyword=weekend'))).toEqual(newestFirst(weekend));
    expect(idsOf(await list('?keyword=WEEKEND%20Promo'))).toEqual(newestFirst(weekend));
    expect(idsOf(await list('?keyword=%25_'))).toEqual([created[4].id]);
    expect(idsOf(await list('?keyword=_'))).toEqual([created[4].id]);
  });

  it('combines filters with AND', async () => {
    expect(idsOf(await list(`?passSerialNumber=${passA}&status=Draft&keyword=PROMO`))).toEqual(
      newestFirst([created[0], created[2]]),
    );
    expect(idsOf(await list(`?passSerialNumber=${passB}&keyword=weekend`))).toEqual([]);
  });

  it('pages with a keyset cursor: every item once, no gaps, also with new ones created between pages', async () => {
    const seen: string[] = [];
    let page = await list('?limit=2');
    expect(page.items).toHaveLength(2);
    expect(page.hasMore).toBe(true);
    seen.push(...idsOf(page));
    // Created while the client pages: newer than page 1, so never on a later page.
    const late = await createNotification(passA, 'Created while paging', 'Draft');
    while (page.cursor !== null) {
      page = await list(`?limit=2&cursor=${page.cursor}`);
      seen.push(...idsOf(page));
    }
    expect(page.hasMore).toBe(false);
    expect(seen).toEqual(newestFirst(created));
    expect(idsOf(await list('?limit=1'))).toEqual([late.id]);

    // Filters hold across pages too.
    const first = await list(`?passSerialNumber=${passA}&limit=2`);
    const second = await list(`?passSerialNumber=${passA}&limit=2&cursor=${first.cursor}`);
    expect([...idsOf(first), ...idsOf(second)]).toEqual(
      newestFirst([...created.slice(0, 3), late]),
    );
    expect(second).toMatchObject({ hasMore: false, cursor: null });
    await http().delete(`/v1/wallet-pass/notifications/${late.id}`).set(owner.auth).expect(204);
  });

  it("never shows another workspace's notifications, nor this one's there", async () => {
    const there = await list('', 200, otherWorkspace);
    expect(there.items.map((item) => item.notificationName)).toEqual(['Weekend promo elsewhere']);
    const ids = new Set(idsOf(await list('?keyword=weekend&limit=20')));
    expect(ids.has(there.items[0].id)).toBe(false);
    expect(idsOf(await list(`?passSerialNumber=${there.items[0].passSerialNumber}`))).toEqual([]);
  });

  it('is readable by every role that reads one notification, branded included', async () => {
    const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
    const response = await http()
      .get('/v1/wallet-pass/notifications?limit=1')
      .set(bearer(branded.token))
      .expect(200);
    expect((response.body as PageBody).items).toHaveLength(1);
    await http().get('/v1/wallet-pass/notifications').expect(401);
  });

  it.each([
    ['an unknown status', '?status=Sent', 'status'],
    ['a status in the wrong case', '?status=Draft,draft', 'status'],
    ['a cursor this list never gave', '?cursor=not-a-cursor', 'cursor'],
    [
      'a cursor with a malformed id',
      `?cursor=${Buffer.from('{"after":"x y"}').toString('base64url')}`,
      'cursor',
    ],
    ['limit 0', '?limit=0', 'limit'],
    ['limit 21', '?limit=21', 'limit'],
    ['a limit that is no number', '?limit=ten', 'limit'],
    ['a malformed pass id', '?passSerialNumber=not%20an%20id', 'passSerialNumber'],
    ['a keyword of 256 characters', `?keyword=${'k'.repeat(256)}`, 'keyword'],
    ['a parameter of another endpoint', '?includeStats=true', 'includeStats'],
  ])('answers %s with a 400 Error body', async (_label, query, field) => {
    const response = await http()
      .get(`/v1/wallet-pass/notifications${query}`)
      .set(owner.auth)
      .expect(400);
    expect(response.body).toMatchObject({
      txId: expect.any(String),
      timestamp: expect.any(String),
      errorCode: 'INVALID_INPUT',
      context: { [field]: expect.any(String) },
    });
  });
});
