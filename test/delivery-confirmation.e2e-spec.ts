import request from 'supertest';
import { binaryBody } from './support/pkpass';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import {
  deviceToken,
  notifyAndWait,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAApp,
  waitFor,
  type WalletAApp,
} from './support/walleta-env';
import type { ApnsFake } from './fakes/apns-fake';

interface Delivery {
  registered: number;
  upToDate: number;
  behind: number;
  lastPushTime: string | null;
}

interface NotificationBody {
  id: string;
  appleNotificationSentCount: number;
  appleConfirmedCount: number;
  appleConfirmationSeconds: { p50: number; p95: number } | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Longer than `FetchConfirmations`' flush interval: what was fetched is in the table by then. */
const FLUSHED_MS = 1500;

/**
 * Did an update reach the phones: a device holds the version it registered at
 * or fetched (200, or 304 because it had it); a notification is confirmed by fetches of its
 * version or a later one, never by an older one.
 */
describe('Delivery confirmation', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;
  let apns: ApnsFake;
  let library = 0;

  beforeAll(async () => {
    walletA = await startWalletAApp({ SCHEDULER_INTERVAL_MS: '200' });
    ({ testApp, owner, apns } = walletA);
  });
  afterAll(() => walletA.close());

  const http = () => request(testApp.server);
  const delivery = async (passId: string, query = '') =>
    (await http().get(`/v1/wallet-pass/${passId}/delivery${query}`).set(owner.auth).expect(200))
      .body as Delivery;
  const fetchPass = (serial: string, authToken: string, modifiedSince?: string) => {
    const call = http()
      .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .buffer(true)
      .parse(binaryBody);
    return modifiedSince === undefined ? call : call.set('If-Modified-Since', modifiedSince);
  };
  const register = (serial: string, authToken: string, pushToken: string) =>
    http()
      .post(`/passkit/v1/devices/confirm-${++library}/registrations/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .send({ pushToken });
  const changePass = async (passId: string, value: string) => {
    const current = await http().get(`/v1/wallet-pass/${passId}`).set(owner.auth).expect(200);
    await http()
      .patch(`/v1/wallet-pass/${passId}`)
      .set(owner.auth)
      .send({
        passName: (current.body as { passName: string }).passName,
        passMetadata: {
          description: 'Card',
          organizationName: 'Brand',
          topField: { key: 'offer', label: 'Offer', value },
        },
      })
      .expect(200);
  };
  const pushedAll = (tokens: string[], times: number) =>
    waitFor(
      () => tokens.every((token) => apns.pushesFor(token).length >= times),
      'every device to be pushed',
    );

  it('counts devices at the version they registered at, behind after a change until they fetch it', async () => {
    const { pass, tokens, authToken } = await publishedPassWithDevices(owner, 3);
    expect(await delivery(pass.id)).toEqual({
      registered: 3,
      upToDate: 3,
      behind: 0,
      lastPushTime: null,
    });

    await changePass(pass.id, '10 % off');
    await pushedAll(tokens, 1);
    await waitFor(async () => (await delivery(pass.id)).lastPushTime !== null, 'the push time');
    expect(await delivery(pass.id)).toMatchObject({ registered: 3, upToDate: 0, behind: 3 });

    // One device fetches the new version (200), another already has it (304), a third only
    // asks for the headers (HEAD confirms nothing).
    const fetched = await fetchPass(pass.id, authToken).expect(200);
    const lastModified = fetched.headers['last-modified'];
    await fetchPass(pass.id, authToken, lastModified).expect(304);
    await http()
      .head(`/passkit/v1/passes/${PASS_TYPE_ID}/${pass.id}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
    await waitFor(async () => (await delivery(pass.id)).upToDate === 2, 'two confirmations');
    await sleep(FLUSHED_MS);
    expect(await delivery(pass.id)).toMatchObject({ registered: 3, upToDate: 2, behind: 1 });

    // Never more up to date than registered, however often devices fetch.
    for (let i = 0; i < 3; i += 1) await fetchPass(pass.id, authToken).expect(200);
    await waitFor(async () => (await delivery(pass.id)).behind === 0, 'every device confirmed');
    await sleep(FLUSHED_MS);
    expect(await delivery(pass.id)).toMatchObject({ registered: 3, upToDate: 3, behind: 0 });

    // A device that registers now holds the current version; one that leaves is not counted.
    await register(pass.id, authToken, deviceToken(9_001)).expect(201);
    await http()
      .delete(`/passkit/v1/devices/confirm-${library}/registrations/${PASS_TYPE_ID}/${pass.id}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
    expect(await delivery(pass.id)).toMatchObject({ registered: 3, upToDate: 3, behind: 0 });
  });

  it('confirms a notification by fetches of its version, 200 or 304, not of an older one', async () => {
    const { pass, tokens, authToken } = await publishedPassWithDevices(owner, 2);
    // A fetch of the version before the message.
    await fetchPass(pass.id, authToken).expect(200);
    await sleep(FLUSHED_MS);

    const sent = (await notifyAndWait(owner, pass.id, {
      notificationMessage: 'Double points today',
    })) as unknown as NotificationBody;
    await pushedAll(tokens, 1);
    expect(sent.appleNotificationSentCount).toBe(2);
    const read = async () =>
      (await http().get(`/v1/wallet-pass/notifications/${sent.id}`).set(owner.auth).expect(200))
        .body as NotificationBody;
    expect(await read()).toMatchObject({ appleConfirmedCount: 0, appleConfirmationSeconds: null });

    const fetched = await fetchPass(pass.id, authToken).expect(200);
    await fetchPass(pass.id, authToken, fetched.headers['last-modified']).expect(304);
    await waitFor(async () => (await read()).appleConfirmedCount === 2, 'two confirmations');
    const confirmed = await read();
    expect(confirmed.appleConfirmationSeconds).not.toBeNull();
    const { p50, p95 } = confirmed.appleConfirmationSeconds!;
    expect(p50).toBeGreaterThanOrEqual(0);
    expect(p95).toBeGreaterThanOrEqual(p50);
    expect(p95).toBeLessThanOrEqual(60);

    // At most the devices pushed: a third fetch does not make three.
    await fetchPass(pass.id, authToken).expect(200);
    await sleep(FLUSHED_MS);
    expect((await read()).appleConfirmedCount).toBe(2);
    // The list shows the same.
    const list = (
      await http()
        .get(`/v1/wallet-pass/notifications?passSerialNumber=${pass.id}`)
        .set(owner.auth)
        .expect(200)
    ).body as { items: NotificationBody[] };
    expect(list.items[0]).toMatchObject({ id: sent.id, appleConfirmedCount: 2 });
  });

  it("tells one holder's devices apart from the pass's", async () => {
    const { pass } = await publishedPassWithDevices(owner, 1, {
      passMetadata: {
        description: 'Card',
        organizationName: 'Brand',
        topField: { key: 'points', label: 'Points', value: '0' },
      },
    });
    const holder = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'member-1', fieldValues: { points: '10' } })
        .expect(201)
    ).body as { id: string; serialNumber: string; downloadUrl: string };
    const holderPackage = await http()
      .get(`${new URL(holder.downloadUrl).pathname}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const holderToken = /"authenticationToken":"([^"]+)"/.exec(
      (holderPackage.body as Buffer).toString('latin1'),
    )![1];
    const holderDevice = deviceToken(9_100);
    await register(holder.serialNumber, holderToken, holderDevice).expect(201);

    expect(await delivery(pass.id)).toMatchObject({ registered: 2, upToDate: 2, behind: 0 });
    expect(await delivery(pass.id, `?holderId=${holder.id}`)).toEqual({
      registered: 1,
      upToDate: 1,
      behind: 0,
      lastPushTime: null,
    });

    // Only the holder's copy changes: the shared pass's device stays up to date.
    await http()
      .patch(`/v1/wallet-pass/${pass.id}/holders/${holder.id}`)
      .set(owner.auth)
      .send({ fieldValues: { points: '20' } })
      .expect(200);
    await waitFor(() => apns.pushesFor(holderDevice).length === 1, "the holder's push");
    expect(await delivery(pass.id)).toMatchObject({ registered: 2, upToDate: 1, behind: 1 });
    await waitFor(
      async () => (await delivery(pass.id, `?holderId=${holder.id}`)).lastPushTime !== null,
      "the holder's push time",
    );
    expect(await delivery(pass.id, `?holderId=${holder.id}`)).toMatchObject({
      registered: 1,
      upToDate: 0,
      behind: 1,
    });

    await fetchPass(holder.serialNumber, holderToken).expect(200);
    await waitFor(
      async () => (await delivery(pass.id, `?holderId=${holder.id}`)).upToDate === 1,
      "the holder's confirmation",
    );
    expect(await delivery(pass.id)).toMatchObject({ registered: 2, upToDate: 2, behind: 0 });
  });

  it('answers 404 for another pass, another workspace or a stranger holder, 400 for a bad id', async () => {
    const { pass } = await publishedPassWithDevices(owner, 0);
    const other = await publishedPassWithDevices(owner, 0);
    const stranger = (
      await http()
        .post(`/v1/wallet-pass/${other.pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'someone-else' })
        .expect(201)
    ).body as { id: string };
    await http()
      .get(`/v1/wallet-pass/${pass.id}/delivery?holderId=${stranger.id}`)
      .set(owner.auth)
      .expect(404);
    const bad = await http()
      .get(`/v1/wallet-pass/${pass.id}/delivery?holderId=not%20an%20id`)
      .set(owner.auth)
      .expect(400);
    expect(bad.body).toMatchObject({ errorCode: 'INVALID_INPUT' });
    expect(Object.keys(bad.body.context as object)).toContain('holderId');

    const workspaceB = await owner.createWorkspace('Delivery B');
    await http()
      .get(`/v1/wallet-pass/${pass.id}/delivery`)
      .set({ ...owner.auth, 'x-workspace-id': workspaceB })
      .expect(404);
    await http().get(`/v1/wallet-pass/${pass.id}/delivery`).expect(401);
  });
});
