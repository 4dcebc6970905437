import { newId, RetentionWorker, ServiceEvents, sqliteDriver } from '@app/core';
import { WebhookDelivery, WebhooksService } from '@app/webhooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource, In } from 'typeorm';
import { GoogleWalletFake } from './fakes/google-wallet-fake';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';
import { createTestDatabase, TEST_DB, type TestDatabase } from './support/test-database';
import {
  deviceToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  registerDevice,
  startWalletAEnv,
  waitFor,
} from './support/walleta-env';
import { verify, WebhookReceiver, type WebhookEvent } from './support/webhook-receiver';
import {
  killWorker,
  requireBuiltWorker,
  startWorkerProcess,
  type WorkerProcess,
} from './support/worker-process';

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  secret?: string;
  [field: string]: unknown;
}

interface DeliveryBody {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptTime: string | null;
  createdTime: string;
}

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '0' },
  secondaryFields: [{ key: 'name', label: 'Name', value: '' }],
};

/**
 * Settings of the app under test: cleartext and loopback allowed (the receiver), quick retries,
 * and a poll so slow that every delivery here starts from a kick after commit or a timed
 * wake-up for a retry.
 */
const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT_MS: '700',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_FOR_MS: '8000',
  RATE_LIMIT_PER_MINUTE: '1000000',
  SCHEDULER_INTERVAL_MS: '600000',
};

describe(`Webhooks (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let receiver: WebhookReceiver;
  let otherWorkspace: string;
  let images: { fileName: string; uploadKey: string }[];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    testApp = await startTestApp(WEBHOOK_TEST_ENV);
    owner = await OwnerSession.start(testApp.server);
    otherWorkspace = await owner.createWorkspace();
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
  });
  afterAll(async () => {
    await testApp.close();
    await receiver.close();
  });

  const http = () => request(testApp.server);
  const auth = (workspaceId?: string) =>
    workspaceId === undefined ? owner.auth : { ...owner.auth, 'x-workspace-id': workspaceId };

  let paths = 0;
  /** A webhook at a fresh path of the receiver. */
  async function createWebhook(
    events: string[],
    options: { workspaceId?: string; path?: string } = {},
  ): Promise<{ webhook: WebhookBody; secret: string; path: string }> {
    const path = options.path ?? `/hook-${++paths}`;
    const response = await http()
      .post('/v1/webhooks')
      .set(auth(options.workspaceId))
      .send({ url: receiver.url(path), events, description: `test ${path}` })
      .expect(201);
    const webhook = response.body as WebhookBody;
    return { webhook, secret: webhook.secret!, path };
  }

  async function createPass(workspaceId?: string): Promise<{ id: string }> {
    let uploadInfoList = images;
    if (workspaceId !== undefined) {
      uploadInfoList = [];
      for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
        uploadInfoList.push({
          fileName,
          uploadKey: await owner.upload(makePng(), fileName, { workspaceId }),
        });
      }
    }
    const response = await http()
      .post('/v1/wallet-pass')
      .set(auth(workspaceId))
      .send({
        passName: `Webhook pass ${++paths}`,
        passMetadata: METADATA,
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    return response.body as { id: string };
  }

  const deliveries = async (webhookId: string, query = '') =>
    (await http().get(`/v1/webhooks/${webhookId}/deliveries${query}`).set(owner.auth).expect(200))
      .body as { items: DeliveryBody[]; cursor: string | null; hasMore: boolean };

  describe('the endpoints API', () => {
    it('shows the secret once: create only, never list, get or update', async () => {
      const { webhook, secret } = await createWebhook(['holder.created']);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(webhook).toMatchObject({
        url: receiver.url(webhook.url.slice(receiver.base.length)),
        events: ['holder.created'],
        enabled: true,
        workspaceId: owner.defaultWorkspaceId,
      });
      const got = await http().get(`/v1/webhooks/${webhook.id}`).set(owner.auth).expect(200);
      const listed = await http().get('/v1/webhooks?limit=20').set(owner.auth).expect(200);
      const patched = await http()
        .patch(`/v1/webhooks/${webhook.id}`)
        .set(owner.auth)
        .send({ description: 'renamed', secret: 'whsec_AAAA' })
        .expect(200);
      for (const text of [got.text, listed.text, patched.text]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain('secret');
      }
      expect(patched.body).toMatchObject({ id: webhook.id, description: 'renamed' });
      // Nor is it in the database in the clear.
      const [row] = await testApp.app
        .get(DataSource)
        .query<{ secret_sealed: string }[]>(
          'SELECT secret_sealed FROM webhook_endpoint WHERE id = ?',
          [webhook.id],
        );
      expect(row.secret_sealed).not.toContain(secret.slice('whsec_'.length, 20));
    });

    it('lists newest first in keyset pages, updates every field, deletes', async () => {
      const workspace = await owner.createWorkspace();
      const created: WebhookBody[] = [];
      for (let i = 0; i < 3; i++) {
        created.push((await createWebhook(['holder.updated'], { workspaceId: workspace })).webhook);
      }
      const first = await http().get('/v1/webhooks?limit=2').set(auth(workspace)).expect(200);
      expect((first.body as { items: WebhookBody[] }).items.map((w) => w.id)).toEqual([
        created[2].id,
        created[1].id,
      ]);
      expect(first.body.hasMore).toBe(true);
      const second = await http()
        .get(`/v1/webhooks?limit=2&cursor=${first.body.cursor as string}`)
        .set(auth(workspace))
        .expect(200);
      expect(second.body).toMatchObject({
        items: [{ id: created[0].id }],
        hasMore: false,
        cursor: null,
      });

      const updated = await http()
        .patch(`/v1/webhooks/${created[0].id}`)
        .set(auth(workspace))
        .send({
          url: receiver.url('/moved'),
          events: ['holder.voided', 'pass.installed'],
          description: null,
          enabled: false,
        })
        .expect(200);
      expect(updated.body).toMatchObject({
        url: receiver.url('/moved'),
        events: ['holder.voided', 'pass.installed'],
        description: null,
        enabled: false,
      });
      await http().delete(`/v1/webhooks/${created[0].id}`).set(auth(workspace)).expect(204);
      await http().get(`/v1/webhooks/${created[0].id}`).set(auth(workspace)).expect(404);
      await http().delete(`/v1/webhooks/${created[0].id}`).set(auth(workspace)).expect(404);
    });

    it('answers a PATCH with 404 when a DELETE removed the webhook while it was under way', async () => {
      const { webhook } = await createWebhook(['holder.created']);
      // Its private URL check, where a concurrent DELETE lands.
      type Checking = { checkUrl(url: string): Promise<void> };
      const service = testApp.app.get<unknown>(WebhooksService) as Checking;
      const checkUrl = jest.spyOn(service, 'checkUrl').mockImplementationOnce(async () => {
        await http().delete(`/v1/webhooks/${webhook.id}`).set(owner.auth).expect(204);
      });
      try {
        const response = await http()
          .patch(`/v1/webhooks/${webhook.id}`)
          .set(owner.auth)
          .send({ url: receiver.url('/moved-away'), description: 'late' })
          .expect(404);
        expect(response.body).toMatchObject({
          errorCode: 'NOT_FOUND',
          context: { id: webhook.id },
        });
      } finally {
        checkUrl.mockRestore();
      }
      await http().get(`/v1/webhooks/${webhook.id}`).set(owner.auth).expect(404);
    });

    it('refuses unknown event types, bad URLs and unknown fields with a 400', async () => {
      const bad = async (body: object, key: string) => {
        const response = await http().post('/v1/webhooks').set(owner.auth).send(body).expect(400);
        expect(response.body.errorCode).toBe('INVALID_INPUT');
        expect(Object.keys(response.body.context as object)).toContain(key);
      };
      const url = receiver.url('/x');
      await bad({ url, events: ['holder.created', 'holder.exploded'] }, 'events');
      await bad({ url, events: ['link.clicked'] }, 'events');
      await bad({ url, events: [] }, 'events');
      await bad({ url }, 'events');
      await bad({ url, events: 'holder.created' }, 'events');
      await bad({ events: ['holder.created'] }, 'url');
      await bad({ url: 'not a url', events: ['holder.created'] }, 'url');
      await bad({ url: 'ftp://127.0.0.1/x', events: ['holder.created'] }, 'url');
      await bad({ url, events: ['holder.created'], colour: 'red' }, 'colour');
      const { webhook } = await createWebhook(['holder.created']);
      const patch = await http()
        .patch(`/v1/webhooks/${webhook.id}`)
        .set(owner.auth)
        .send({ events: ['nope'], enabled: null })
        .expect(400);
      expect(Object.keys(patch.body.context as object).sort()).toEqual(['enabled', 'events']);
    });

    it('keeps other workspaces out (404) and branded users off (403); members manage them', async () => {
      const { webhook } = await createWebhook(['holder.created']);
      await http().get(`/v1/webhooks/${webhook.id}`).set(auth(otherWorkspace)).expect(404);
      await http()
        .patch(`/v1/webhooks/${webhook.id}`)
        .set(auth(otherWorkspace))
        .send({ enabled: false })
        .expect(404);
      await http().delete(`/v1/webhooks/${webhook.id}`).set(auth(otherWorkspace)).expect(404);
      await http()
        .get(`/v1/webhooks/${webhook.id}/deliveries`)
        .set(auth(otherWorkspace))
        .expect(404);

      const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
      await http().get('/v1/webhooks').set(bearer(branded.token)).expect(403);
      await http().get(`/v1/webhooks/${webhook.id}`).set(bearer(branded.token)).expect(403);
      await http()
        .post('/v1/webhooks')
        .set(bearer(branded.token))
        .send({ url: receiver.url('/b'), events: ['holder.created'] })
        .expect(403);

      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const made = await http()
        .post('/v1/webhooks')
        .set(bearer(member.token))
        .send({ url: receiver.url('/member'), events: ['holder.created'] })
        .expect(201);
      await http()
        .delete(`/v1/webhooks/${(made.body as WebhookBody).id}`)
        .set(bearer(member.token))
        .expect(204);
    });

    it('allows 20 webhooks per workspace (409 beyond)', async () => {
      const workspace = await owner.createWorkspace();
      for (let i = 0; i < 20; i++) {
        await createWebhook(['holder.voided'], { workspaceId: workspace });
      }
      const refused = await http()
        .post('/v1/webhooks')
        .set(auth(workspace))
        .send({ url: receiver.url('/21'), events: ['holder.voided'] })
        .expect(409);
      expect(refused.body).toMatchObject({ errorCode: 'CONFLICT', context: { limit: 20 } });
    });
  });

  describe('holder events', () => {
    it('sends each subscribed holder event of the workspace, signed, with the holder as the API shows it', async () => {
      const all = await createWebhook(['holder.created', 'holder.updated', 'holder.voided']);
      const voidedOnly = await createWebhook(['holder.voided']);
      const notHolders = await createWebhook(['notification.finished']);
      const elsewhere = await createWebhook(['holder.created', 'holder.updated', 'holder.voided'], {
        workspaceId: otherWorkspace,
      });
      const pass = await createPass();
      const holders = `/v1/wallet-pass/${pass.id}/holders`;

      const created = await http()
        .post(holders)
        .set(owner.auth)
        .send({ externalId: 'member-1', fieldValues: { points: '10' } })
        .expect(201);
      const holderId = (created.body as { id: string }).id;
      const patched = await http()
        .patch(`${holders}/${holderId}`)
        .set(owner.auth)
        .send({ fieldValues: { points: '25' } })
        .expect(200);
      // A PATCH that changes nothing tells nothing.
      await http()
        .patch(`${holders}/${holderId}`)
        .set(owner.auth)
        .send({ externalId: 'member-1', fieldValues: { points: '25' } })
        .expect(200);
      const imported = await http()
        .post(`${holders}/import`)
        .set(owner.auth)
        .send([
          { externalId: 'member-1', fieldValues: { points: '40' } },
          { externalId: 'member-2' },
        ])
        .expect(200);
      expect(imported.body).toEqual({ created: 1, updated: 1 });
      // An import row that changes nothing tells nothing.
      await http()
        .post(`${holders}/import`)
        .set(owner.auth)
        .send([{ externalId: 'member-2' }])
        .expect(200);
      await http().delete(`${holders}/${holderId}`).set(owner.auth).expect(204);
      await http().delete(`${holders}/${holderId}`).set(owner.auth).expect(204);
      const voided = await http().get(`${holders}/${holderId}`).set(owner.auth).expect(200);

      await waitFor(() => receiver.at(all.path).length >= 5, 'five holder events');
      await waitFor(() => receiver.at(voidedOnly.path).length >= 1, 'the voided event');
      // Time for anything that should not come.
      await new Promise((resolve) => setTimeout(resolve, 500));

      const events = receiver.events(all.path, all.secret);
      expect(events.map((event) => event.type).sort()).toEqual([
        'holder.created',
        'holder.created',
        'holder.updated',
        'holder.updated',
        'holder.voided',
      ]);
      for (const event of events) {
        expect(Object.keys(event).sort()).toEqual([
          'data',
          'id',
          'timestamp',
          'type',
          'workspaceId',
        ]);
        expect(event.workspaceId).toBe(owner.defaultWorkspaceId);
        expect(event.id).toMatch(/^msg_[0-9a-f]{32}$/);
        expect(new Date(event.timestamp).toISOString()).toBe(event.timestamp);
      }
      const requests = receiver.at(all.path);
      for (const [i, r] of requests.entries()) {
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['webhook-id']).toBe(events[i].id);
        expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(
          60,
        );
      }
      const ofType = (type: string) => events.filter((event) => event.type === type);
      // The body's holder is the API's Holder, as it was when the change happened.
      const byHolder = (event: WebhookEvent) => event.data.id === holderId;
      expect(ofType('holder.created').find(byHolder)!.data).toEqual(created.body);
      expect(ofType('holder.updated').map((event) => event.data.fieldValues)).toEqual(
        expect.arrayContaining([{ points: '25' }, { points: '40' }]),
      );
      const points = (event: WebhookEvent) =>
        (event.data.fieldValues as Record<string, string>).points;
      expect(ofType('holder.updated').find((event) => points(event) === '25')!.data).toEqual(
        patched.body,
      );
      expect(
        ofType('holder.created')
          .map((event) => event.data.externalId)
          .sort(),
      ).toEqual(['member-1', 'member-2']);
      expect(ofType('holder.voided')[0].data).toEqual(voided.body);
      expect(ofType('holder.voided')[0].data.status).toBe('Voided');

      expect(receiver.events(voidedOnly.path, voidedOnly.secret).map((e) => e.type)).toEqual([
        'holder.voided',
      ]);
      // The same event reaches each endpoint with its own signature and the same id.
      expect(receiver.at(voidedOnly.path)[0].headers['webhook-id']).toBe(
        ofType('holder.voided')[0].id,
      );
      expect(() => verify(all.secret, receiver.at(voidedOnly.path)[0])).toThrow();
      expect(receiver.at(notHolders.path)).toHaveLength(0);
      expect(receiver.at(elsewhere.path)).toHaveLength(0);

      const list = await deliveries(all.webhook.id);
      expect(list.items).toHaveLength(5);
      expect(list.items.every((item) => item.status === 'Delivered')).toBe(true);
      expect(list.items[0]).toMatchObject({
        eventType: 'holder.voided',
        eventId: ofType('holder.voided')[0].id,
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptTime: null,
      });
      expect(Object.keys(list.items[0]).sort()).toEqual([
        'attempts',
        'createdTime',
        'eventId',
        'eventType',
        'id',
        'lastError',
        'lastStatusCode',
        'nextAttemptTime',
        'status',
      ]);
      const page = await deliveries(all.webhook.id, '?limit=2');
      expect(page.hasMore).toBe(true);
      const rest = await deliveries(all.webhook.id, `?limit=20&cursor=${page.cursor}`);
      expect([...page.items, ...rest.items].map((item) => item.id)).toEqual(
        list.items.map((item) => item.id),
      );
      await http()
        .get(`/v1/webhooks/${all.webhook.id}/deliveries?cursor=bogus`)
        .set(owner.auth)
        .expect(400);
    });

    it('delivers within a second of the change (kicked after commit, not at the next poll)', async () => {
      const hook = await createWebhook(['holder.created']);
      const pass = await createPass();
      const started = Date.now();
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'fast-1' })
        .expect(201);
      await waitFor(() => receiver.at(hook.path).length === 1, 'the event', 5000);
      expect(receiver.at(hook.path)[0].receivedAt - started).toBeLessThan(1000);
    });

    it('queues nothing for a disabled webhook; its pending deliveries wait until it is enabled again', async () => {
      const hook = await createWebhook(['holder.created']);
      const pass = await createPass();
      const holder = (externalId: string) =>
        http()
          .post(`/v1/wallet-pass/${pass.id}/holders`)
          .set(owner.auth)
          .send({ externalId })
          .expect(201);
      const setEnabled = (enabled: boolean) =>
        http()
          .patch(`/v1/webhooks/${hook.webhook.id}`)
          .set(owner.auth)
          .send({ enabled })
          .expect(200);

      await setEnabled(false);
      await holder('while-disabled');
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(receiver.at(hook.path)).toHaveLength(0);
      expect((await deliveries(hook.webhook.id)).items).toHaveLength(0);

      await setEnabled(true);
      receiver.plan(hook.path, 503, 503, 503);
      await holder('while-enabled');
      await waitFor(() => receiver.at(hook.path).length >= 1, 'a first attempt');
      await setEnabled(false);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const attemptsWhileDisabled = receiver.at(hook.path).length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.at(hook.path)).toHaveLength(attemptsWhileDisabled);
      const [waiting] = (await deliveries(hook.webhook.id)).items;
      expect(waiting).toMatchObject({
        status: 'Pending',
        lastStatusCode: 503,
        lastError: 'HTTP 503',
      });

      await setEnabled(true);
      await waitFor(
        async () => (await deliveries(hook.webhook.id)).items[0].status === 'Delivered',
        'delivered once enabled again',
      );
      expect(receiver.events(hook.path, hook.secret).map((event) => event.data.externalId)).toEqual(
        Array<string>(receiver.at(hook.path).length).fill('while-enabled'),
      );
    });

    it('sends nothing more for a deleted webhook; retention purges its deliveries', async () => {
      const hook = await createWebhook(['holder.created']);
      receiver.plan(hook.path, ...Array<number>(50).fill(500));
      const pass = await createPass();
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'deleted-1' })
        .expect(201);
      await waitFor(() => receiver.at(hook.path).length >= 1, 'a first attempt');
      await http().delete(`/v1/webhooks/${hook.webhook.id}`).set(owner.auth).expect(204);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = receiver.at(hook.path).length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.at(hook.path)).toHaveLength(sent);
      // The DELETE removed the endpoint's row only; the pending delivery waits for retention.
      const left = () =>
        testApp.app
          .get(DataSource)
          .getRepository(WebhookDelivery)
          .countBy({ endpointId: hook.webhook.id });
      expect(await left()).toBe(1);
      await testApp.app.get(RetentionWorker).tick();
      expect(await left()).toBe(0);
      expect(receiver.at(hook.path)).toHaveLength(sent);
    });
  });

  describe('retries', () => {
    it('retries after a 500 and a timeout until delivered, always with one webhook-id', async () => {
      const hook = await createWebhook(['holder.created']);
      receiver.plan(hook.path, 500, 'hang', 302);
      const pass = await createPass();
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'retry-1' })
        .expect(201);
      await waitFor(() => receiver.at(hook.path).length >= 4, 'four attempts');
      await waitFor(
        async () => (await deliveries(hook.webhook.id)).items[0]?.status === 'Delivered',
        'Delivered',
      );
      const attempts = receiver.at(hook.path);
      expect(attempts).toHaveLength(4);
      const events = attempts.map((attempt) => verify(hook.secret, attempt));
      expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id'])).size).toBe(1);
      expect(new Set(events.map((event) => JSON.stringify(event))).size).toBe(1);
      const [delivery] = (await deliveries(hook.webhook.id)).items;
      expect(delivery).toMatchObject({
        status: 'Delivered',
        attempts: 4,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptTime: null,
      });
      // The first retry within WEBHOOK_RETRY_BASE_MS (+ the poll's slack), growing after.
      expect(attempts[1].receivedAt - attempts[0].receivedAt).toBeLessThan(1500);
    });

    it('records the last failure while pending, and fails for good once the window closes', async () => {
      const hook = await createWebhook(['holder.created']);
      receiver.plan(hook.path, ...Array<number>(200).fill(500));
      const pass = await createPass();
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'doomed-1' })
        .expect(201);
      await waitFor(() => receiver.at(hook.path).length >= 1, 'a first attempt');
      await waitFor(
        async () => (await deliveries(hook.webhook.id)).items[0]?.lastStatusCode === 500,
        'the failure recorded',
      );
      const pending = (await deliveries(hook.webhook.id)).items[0];
      expect(pending).toMatchObject({ status: 'Pending', lastError: 'HTTP 500' });
      expect(pending.nextAttemptTime).not.toBeNull();
      await waitFor(
        async () => (await deliveries(hook.webhook.id)).items[0].status === 'Failed',
        'Failed after WEBHOOK_RETRY_FOR_MS',
        20_000,
      );
      const failed = (await deliveries(hook.webhook.id)).items[0];
      expect(failed).toMatchObject({
        status: 'Failed',
        lastStatusCode: 500,
        nextAttemptTime: null,
      });
      expect(failed.attempts).toBeGreaterThan(3);
      expect(receiver.at(hook.path)).toHaveLength(failed.attempts);
    });

    it('lets a slow endpoint delay no other', async () => {
      const slow = await createWebhook(['holder.created']);
      const fast = await createWebhook(['holder.created']);
      receiver.plan(slow.path, ...Array<'hang'>(20).fill('hang'));
      const pass = await createPass();
      const started = Date.now();
      for (let i = 0; i < 8; i++) {
        await http()
          .post(`/v1/wallet-pass/${pass.id}/holders`)
          .set(owner.auth)
          .send({ externalId: `slow-${i}` })
          .expect(201);
      }
      await waitFor(() => receiver.at(fast.path).length === 8, 'the fast endpoint');
      // Each hanging request holds its slot for WEBHOOK_TIMEOUT_MS (700 ms).
      expect(Date.now() - started).toBeLessThan(3000);
    });
  });

  describe('fairness', () => {
    it('delivers the backlog of a live endpoint promptly while five dead endpoints keep retrying', async () => {
      // A workspace of its own: only these six endpoints get its events.
      const workspace = await owner.createWorkspace();
      const dead: { webhook: WebhookBody; path: string }[] = [];
      for (let i = 0; i < 5; i++) {
        const hook = await createWebhook(['holder.created'], { workspaceId: workspace });
        // Never answers: each attempt holds its socket for WEBHOOK_TIMEOUT_MS (700 ms).
        receiver.plan(hook.path, ...Array<'hang'>(1000).fill('hang'));
        dead.push(hook);
      }
      const live = await createWebhook(['holder.created'], { workspaceId: workspace });
      const pass = await createPass(workspace);
      const BACKLOG = 200;
      // One import: 200 events, 1,200 deliveries due at once.
      const started = Date.now();
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders/import`)
        .set(auth(workspace))
        .send(Array.from({ length: BACKLOG }, (_, i) => ({ externalId: `fair-${i}` })))
        .expect(200);
      await waitFor(() => receiver.at(live.path).length >= BACKLOG, 'the live backlog', 30_000);
      const tookMs = Date.now() - started;
      // The dead endpoints were tried meanwhile and go on being retried.
      const deadAttempts = () => dead.reduce((sum, hook) => sum + receiver.at(hook.path).length, 0);
      expect(dead.every((hook) => receiver.at(hook.path).length >= 1)).toBe(true);
      const before = deadAttempts();
      await waitFor(() => deadAttempts() > before + 5, 'more dead attempts', 10_000);
      // Unhindered, 200 events reach a receiver that answers at once in well under a second;
      // were the dead endpoints to hold the delivery slots, they would wait for one 700 ms
      // timeout after another (about 12 s). Generous for a loaded 2-core machine.
      expect(tookMs).toBeLessThan(5000);
      expect(new Set(receiver.at(live.path).map((a) => a.headers['webhook-id'])).size).toBe(
        BACKLOG,
      );
    });
  });

  describe('retention', () => {
    it('deletes Delivered and Failed deliveries older than RETENTION_DAYS; pending ones stay', async () => {
      const hook = await createWebhook(['holder.created']);
      const dataSource = testApp.app.get(DataSource);
      const day = 24 * 3600 * 1000;
      const ago = (days: number) => new Date(Date.now() - days * day);
      const row = (status: string, days: number, endpointId = hook.webhook.id) => {
        const id = newId();
        const finished = status === 'Pending' ? null : ago(days);
        return Object.assign(new WebhookDelivery(), {
          id,
          workspaceId: owner.defaultWorkspaceId,
          endpointId,
          eventId: `msg_${id.replace(/-/g, '')}`,
          eventType: 'holder.created',
          body: '{}',
          status,
          // Pending rows are kept from the worker (their endpoint's next attempt is far off).
          nextAttemptTime: status === 'Pending' ? ago(days) : null,
          lastStatusCode: null,
          lastError: null,
          leaseUntil: status === 'Pending' ? new Date(Date.now() + day) : null,
          leasedBy: status === 'Pending' ? 'elsewhere' : null,
          attempts: 1,
          createdTime: ago(days),
          updatedTime: ago(days),
          finishedTime: finished,
        });
      };
      const rows = {
        oldDelivered: row('Delivered', 40),
        oldFailed: row('Failed', 31),
        recentDelivered: row('Delivered', 1),
        oldPending: row('Pending', 40),
        // Those of a deleted endpoint go whatever their status and age.
        orphanPending: row('Pending', 40, newId()),
        orphanRecentPending: row('Pending', 0, newId()),
        orphanRecentDelivered: row('Delivered', 1, newId()),
      };
      await dataSource.getRepository(WebhookDelivery).insert(Object.values(rows));
      await testApp.app.get(RetentionWorker).tick();
      const left = await dataSource
        .getRepository(WebhookDelivery)
        .findBy({ id: In(Object.values(rows).map((r) => r.id)) });
      expect(left.map((r) => r.id).sort()).toEqual(
        [rows.recentDelivered.id, rows.oldPending.id].sort(),
      );
    });
  });

  describe('the outbox', () => {
    it('writes deliveries in the transaction of the change: rolled back with it, sent after commit', async () => {
      const hook = await createWebhook(['pass.installed']);
      const events = testApp.app.get(ServiceEvents);
      const dataSource = testApp.app.get(DataSource);
      const event = {
        type: 'pass.installed' as const,
        workspaceId: owner.defaultWorkspaceId,
        time: new Date(),
        data: { passId: 'p-1', holderId: null, platform: 'WalletA' as const },
      };
      await expect(
        dataSource.transaction(async (manager) => {
          await events.record(manager, event);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await dataSource.transaction((manager) =>
        events.record(manager, { ...event, data: { ...event.data, passId: 'p-2' } }),
      );
      await waitFor(() => receiver.at(hook.path).length === 1, 'the committed event');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const received = receiver.events(hook.path, hook.secret);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({
        type: 'pass.installed',
        workspaceId: owner.defaultWorkspaceId,
        timestamp: event.time.toISOString(),
        data: { passId: 'p-2', holderId: null, platform: 'WalletA' },
      });
      expect((await deliveries(hook.webhook.id)).items).toHaveLength(1);
    });

    it('never sends link.clicked (statistics only)', async () => {
      const hook = await createWebhook(['pass.installed']);
      const dataSource = testApp.app.get(DataSource);
      await dataSource.transaction((manager) =>
        testApp.app.get(ServiceEvents).record(manager, {
          type: 'link.clicked',
          workspaceId: owner.defaultWorkspaceId,
          time: new Date(),
          data: { passId: 'p-3' },
        }),
      );
      expect((await deliveries(hook.webhook.id)).items).toHaveLength(0);
    });
  });
});

describe(`Webhook URLs without WEBHOOK_ALLOW_* (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  it.each([
    ['http://hooks.example/in', 'must use https://'],
    ['https://127.0.0.1/in', '127.0.0.1 is a loopback address'],
    ['https://localhost:8443/in', 'localhost resolves to'],
    ['https://[::ffff:127.0.0.1]/in', 'is a loopback address'],
    ['https://169.254.169.254/latest/meta-data', 'is a cloud metadata address'],
    ['https://10.0.0.7/in', 'is a private address'],
    ['https://[fd00::1]/in', 'is a private (unique local) address'],
    ['https://host.invalid/in', 'does not resolve'],
  ])('refuses %s (400, context.url)', async (url, message) => {
    const response = await request(testApp.server)
      .post('/v1/webhooks')
      .set(owner.auth)
      .send({ url, events: ['holder.created'] })
      .expect(400);
    expect(response.body.errorCode).toBe('INVALID_INPUT');
    expect(response.body.context.url).toContain(message);
  });

  it('refuses a PATCH to such a URL too', async () => {
    // A public address literal passes the check without DNS.
    const created = await request(testApp.server)
      .post('/v1/webhooks')
      .set(owner.auth)
      .send({ url: 'https://93.184.216.34/in', events: ['holder.created'] })
      .expect(201);
    const response = await request(testApp.server)
      .patch(`/v1/webhooks/${(created.body as { id: string }).id}`)
      .set(owner.auth)
      .send({ url: 'https://192.168.1.20/in' })
      .expect(400);
    expect(response.body.context).toEqual({ url: '192.168.1.20 is a private address' });
  });
});

/**
 * A worker process killed with SIGKILL while its request to the endpoint is in flight (the
 * receiver holds the first request open): the event is not lost. Another worker takes the
 * delivery over once the lease runs out and sends it again, with the same `webhook-id`.
 * Workers are the built `dist/apps/worker/src/main.js` (`npx nest build api` first); as in
 * test/faults/worker-sigkill, the test app only sets the scene and is closed before the first
 * worker starts, so that each process is alone on the database (SQLite).
 */
describe(`A webhook worker killed mid-delivery (${TEST_DB})`, () => {
  const LEASE_MS = 3000;
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    requireBuiltWorker();
    receiver = await WebhookReceiver.start();
    database = await createTestDatabase();
    env = {
      ...database.env,
      JWT_SECRET: TEST_JWT_SECRET,
      STORAGE_DIR: '/tmp/wps-test-uploads',
      // The secrets are sealed with a key derived from the pass-signing key: one for all.
      WALLET_A_DEV_CERT_DIR: mkdtempSync(join(tmpdir(), 'wps-webhook-kill-')),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The first request stays in flight until the kill (which follows it at once); the lease
      // must outlast it by WEBHOOK_LEASE_MARGIN_MS (config check).
      WEBHOOK_TIMEOUT_MS: '2000',
      WORKER_LEASE_MS: String(LEASE_MS),
      SCHEDULER_INTERVAL_MS: '200',
    };
  });
  afterAll(async () => {
    for (const worker of workers) await killWorker(worker);
    await database?.drop();
    await receiver?.close();
  });

  function startWorker(): WorkerProcess {
    const worker = startWorkerProcess(env, 'warn');
    workers.push(worker);
    return worker;
  }

  /** The deliveries, read with a connection of the test's own while no app runs here. */
  async function deliveryRows(): Promise<Record<string, unknown>[]> {
    const dataSource = new DataSource(
      database.env.DB_TYPE === 'mysql'
        ? { type: 'mysql', url: database.env.DB_URL, timezone: 'Z' }
        : { type: 'better-sqlite3', database: database.env.DB_PATH, driver: sqliteDriver() },
    );
    await dataSource.initialize();
    try {
      return await dataSource.query<Record<string, unknown>[]>(
        'SELECT status, attempts, last_status_code, lease_until, next_attempt_time FROM webhook_delivery',
      );
    } finally {
      await dataSource.destroy();
    }
  }

  it('loses no event: another worker sends it again, with the same webhook-id', async () => {
    const testApp = await startTestApp({ ...env, WORKER_ENABLED: 'false' }, database);
    let secret: string;
    try {
      const owner = await OwnerSession.start(testApp.server);
      const images = [];
      for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
        images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
      }
      const created = await request(testApp.server)
        .post('/v1/webhooks')
        .set(owner.auth)
        .send({ url: receiver.url('/killed'), events: ['holder.created'] })
        .expect(201);
      ({ secret } = created.body as { secret: string });
      const pass = await request(testApp.server)
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({
          passName: 'Kill pass',
          passMetadata: METADATA,
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(201);
      await request(testApp.server)
        .post(`/v1/wallet-pass/${(pass.body as { id: string }).id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'survivor' })
        .expect(201);
    } finally {
      await testApp.app.close();
    }
    receiver.plan('/killed', 'hang');

    const first = startWorker();
    await waitFor(() => receiver.at('/killed').length === 1, 'the first attempt', 30_000);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const killedAt = Date.now();

    const second = startWorker();
    await waitFor(() => receiver.at('/killed').length === 2, 'the second worker', 30_000).catch(
      async (error: unknown) => {
        const rows = await deliveryRows();
        throw new Error(
          `${String(error)}; second worker exit ${second.process.exitCode}, deliveries ` +
            `${JSON.stringify(rows)} at ${new Date().toISOString()}; its log: ${second.stderr.join('')}`,
        );
      },
    );
    const resumedIn = Date.now() - killedAt;
    // Time for the outcome to be written before the worker stops.
    await new Promise((resolve) => setTimeout(resolve, 500));
    second.process.kill('SIGTERM');
    await second.exited;

    const [a, b] = receiver.at('/killed');
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    expect(verify(secret!, b)).toEqual(verify(secret!, a));
    expect(verify(secret!, b)).toMatchObject({
      type: 'holder.created',
      data: { externalId: 'survivor' },
    });
    expect(resumedIn).toBeGreaterThanOrEqual(LEASE_MS / 2);

    const rows = await deliveryRows();
    expect(
      rows.map((row) => [row.status, Number(row.attempts), Number(row.last_status_code)]),
    ).toEqual([['Delivered', 2, 200]]);
  });
});

/**
 * `pass.installed`, `pass.uninstalled` and `notification.finished` are recorded by the code
 * of the statistics branch (device registrations, Google callbacks, the notification worker's
 * finish), written in parallel with this one: these tests fail until both are merged.
 */
describe(`Webhook events recorded by the statistics branch (${TEST_DB})`, () => {
  const ISSUER_ID = '3388000000044445555';
  const FINAL = ['Published', 'Failed', 'AppleFailedGoogleSuccess', 'AppleSuccessGoogleFailed'];
  let testApp: TestApp;
  let owner: OwnerSession;
  let receiver: WebhookReceiver;
  let google: GoogleWalletFake;
  let closeApns: () => Promise<void>;
  let hook: { path: string; secret: string };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    google = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    const walletA = await startWalletAEnv();
    closeApns = () => walletA.apns.close();
    testApp = await startTestApp({
      ...walletA.env,
      WALLET_B_ISSUER_ID: ISSUER_ID,
      WALLET_B_SERVICE_ACCOUNT: google.writeServiceAccount(
        mkdtempSync(join(tmpdir(), 'wps-webhook-b-')),
      ),
      WALLET_B_API_URL: google.url,
      WALLET_B_CALLBACK_KEYS_URL: google.keysUrl,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SCHEDULER_INTERVAL_MS: '200',
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
    owner = await OwnerSession.start(testApp.server);
    const created = await request(testApp.server)
      .post('/v1/webhooks')
      .set(owner.auth)
      .send({
        url: receiver.url('/stats'),
        events: ['pass.installed', 'pass.uninstalled', 'notification.finished'],
      })
      .expect(201);
    hook = { path: '/stats', secret: (created.body as { secret: string }).secret };
  });
  afterAll(async () => {
    await testApp?.close();
    await closeApns?.();
    await google?.close();
    await receiver?.close();
  });

  const eventsOf = (type: string) =>
    receiver.events(hook.path, hook.secret).filter((event) => event.type === type);

  it('sends pass.installed and pass.uninstalled for a WalletA device (PassKit web service)', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 0);
    await registerDevice(
      testApp.server,
      pass.id,
      authToken,
      'webhook-device-1',
      deviceToken(9_100_001),
    );
    await waitFor(
      () => eventsOf('pass.installed').some((e) => e.data.passId === pass.id),
      'pass.installed',
    );
    expect(eventsOf('pass.installed').find((e) => e.data.passId === pass.id)).toMatchObject({
      workspaceId: owner.defaultWorkspaceId,
      data: { passId: pass.id, holderId: null, platform: 'WalletA' },
    });
    await request(testApp.server)
      .delete(`/passkit/v1/devices/webhook-device-1/registrations/${PASS_TYPE_ID}/${pass.id}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
    await waitFor(
      () => eventsOf('pass.uninstalled').some((e) => e.data.passId === pass.id),
      'pass.uninstalled',
    );
    expect(eventsOf('pass.uninstalled').find((e) => e.data.passId === pass.id)!.data).toEqual({
      passId: pass.id,
      holderId: null,
      platform: 'WalletA',
    });
  });

  it('sends pass.installed and pass.uninstalled for Google save and delete callbacks', async () => {
    const { pass } = await publishedPassWithDevices(owner, 0);
    const classId = `${ISSUER_ID}.${pass.id}`;
    const objectId = `${classId}-webhookobject01`;
    const callback = (eventType: 'save' | 'del') =>
      request(testApp.server)
        .post('/callbacks/wallet-b')
        .send(
          google.callbackSigner.build(
            { classId, objectId, eventType, nonce: `webhook-${eventType}` },
            { recipientId: ISSUER_ID },
          ) as object,
        )
        .expect(200);
    await callback('save');
    await waitFor(
      () => eventsOf('pass.installed').some((e) => e.data.passId === pass.id),
      'pass.installed (WalletB)',
    );
    await callback('del');
    await waitFor(
      () => eventsOf('pass.uninstalled').some((e) => e.data.passId === pass.id),
      'pass.uninstalled (WalletB)',
    );
    for (const type of ['pass.installed', 'pass.uninstalled']) {
      expect(eventsOf(type).find((e) => e.data.passId === pass.id)!.data).toEqual({
        passId: pass.id,
        holderId: null,
        platform: 'WalletB',
      });
    }
  });

  it('sends notification.finished with the Notification as the API shows it, once it ran to the end', async () => {
    const { pass } = await publishedPassWithDevices(owner, 1);
    const created = await request(testApp.server)
      .post('/v1/wallet-pass/notifications')
      .set(owner.auth)
      .send({ passSerialNumber: pass.id, notificationName: 'Webhook', notificationMessage: 'Hi' })
      .expect(201);
    const id = (created.body as { id: string }).id;
    await waitFor(
      () => eventsOf('notification.finished').some((e) => e.data.id === id),
      'notification.finished',
    );
    const shown = await request(testApp.server)
      .get(`/v1/wallet-pass/notifications/${id}`)
      .set(owner.auth)
      .expect(200);
    const event = eventsOf('notification.finished').find((e) => e.data.id === id)!;
    expect(FINAL).toContain(event.data.status);
    // Exactly the API's Notification: nothing more (no passId beside passSerialNumber).
    expect(event.data).toEqual(shown.body);
    expect(event.data).toMatchObject({ id, passSerialNumber: pass.id });
    expect(eventsOf('notification.finished').filter((e) => e.data.id === id)).toHaveLength(1);
  });
});
