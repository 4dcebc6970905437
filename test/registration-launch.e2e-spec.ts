import type { Server } from 'node:http';
import request from 'supertest';
import type { ApnsFake } from './fakes/apns-fake';
import type { OwnerSession } from './support/session';
import { TEST_DB } from './support/test-database';
import {
  deviceToken,
  forEachLimited,
  packageAuthToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAApp,
  waitFor,
  type WalletAApp,
} from './support/walleta-env';

/**
 * Registrations as a launch brings them: every registration with a
 * valid token is stored, whatever the crowd behind one address, and the next change of the pass
 * reaches every device. Abuse of the shared pass's public token is bounded by what one source
 * keeps (`PASSKIT_DEVICES_PER_SOURCE`), a holder's copy by its own device count
 * (`PASSKIT_DEVICES_PER_HOLDER`), and refused tokens by a budget per client IP
 * (`PASSKIT_REFUSED_PER_IP_PER_MINUTE`). Client IPs come from `X-Forwarded-For` (one trusted
 * proxy hop), as behind the load balancer.
 */

/** Requests in flight at once: phones of a crowd arrive together, not one at a time. */
const CONCURRENCY = 50;
/** Budget of one launch shape (registrations, fetches, the change and the follow-ups). */
const LAUNCH_TIMEOUT_MS = 180_000;

interface Phone {
  library: string;
  pushToken: string;
  ip: string;
}

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  appleInstalledCount: number;
}

interface StatsDay {
  appleInstalls: number;
  appleUninstalls: number;
}

const METADATA = {
  description: 'Launch card',
  organizationName: 'Brand Ltd',
  topField: { key: 'points', label: 'Points', value: '0' },
};

let phoneSeed = 500_000;

/** `count` phones, each with its own device library id and push token, behind `ipOf(i)`. */
function phones(count: number, ipOf: (index: number) => string): Phone[] {
  return Array.from({ length: count }, (_, index) => {
    const n = ++phoneSeed;
    return { library: `launch-${n}`, pushToken: deviceToken(n), ip: ipOf(index) };
  });
}

/** How many of each status: `{ '201': 600 }`, so a failure names what came back instead. */
function statusCounts(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Apple's PassKit web service as a phone calls it, from the phone's address. */
function passKit(server: Server) {
  const withToken = (call: request.Test, token: string | undefined) =>
    token === undefined ? call : call.set('Authorization', `ApplePass ${token}`);
  return {
    register: (phone: Phone, serial: string, token: string | undefined) =>
      withToken(
        request(server)
          .post(`/passkit/v1/devices/${phone.library}/registrations/${PASS_TYPE_ID}/${serial}`)
          .set('X-Forwarded-For', phone.ip),
        token,
      ).send({ pushToken: phone.pushToken }),
    fetch: (phone: Phone, serial: string, token: string, ifModifiedSince?: string) => {
      const call = withToken(
        request(server)
          .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${serial}`)
          .set('X-Forwarded-For', phone.ip),
        token,
      );
      return ifModifiedSince === undefined ? call : call.set('If-Modified-Since', ifModifiedSince);
    },
    updated: (phone: Phone, tag?: string) =>
      request(server)
        .get(`/passkit/v1/devices/${phone.library}/registrations/${PASS_TYPE_ID}`)
        .query(tag === undefined ? {} : { passesUpdatedSince: tag })
        .set('X-Forwarded-For', phone.ip),
  };
}

/** The owner's view of a pass, its holders, its statistics and its changes. */
function ownerApi(owner: OwnerSession) {
  const http = () => request(owner.server);
  return {
    async createPass(name: string): Promise<{ id: string; slug: string; authToken: string }> {
      const { pass, authToken } = await publishedPassWithDevices(owner, 0, {
        passName: name,
        passMetadata: METADATA,
      });
      return { ...pass, authToken };
    },
    async counters(
      passId: string,
    ): Promise<{ appleIssuedCount: number; appleActiveCount: number }> {
      const body = (await http().get(`/v1/wallet-pass/${passId}`).set(owner.auth).expect(200))
        .body as { appleIssuedCount: number; appleActiveCount: number };
      return { appleIssuedCount: body.appleIssuedCount, appleActiveCount: body.appleActiveCount };
    },
    /** WalletA installs and uninstalls of the pass, all days of the default range together. */
    async installs(passId: string): Promise<{ appleInstalls: number; appleUninstalls: number }> {
      const days = (
        (await http().get(`/v1/wallet-pass/${passId}/stats`).set(owner.auth).expect(200)).body as {
          days: StatsDay[];
        }
      ).days;
      return {
        appleInstalls: days.reduce((sum, day) => sum + day.appleInstalls, 0),
        appleUninstalls: days.reduce((sum, day) => sum + day.appleUninstalls, 0),
      };
    },
    /** A change holders see: the top field's value. */
    async changePass(pass: { id: string }, name: string, points: string): Promise<void> {
      await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .send({
          passName: name,
          passMetadata: { ...METADATA, topField: { ...METADATA.topField, value: points } },
        })
        .expect(200);
    },
    async importHolders(passId: string, externalIds: string[]): Promise<HolderBody[]> {
      await http()
        .post(`/v1/wallet-pass/${passId}/holders/import`)
        .set(owner.auth)
        .send(externalIds.map((externalId) => ({ externalId })))
        .expect(200);
      return this.holders(passId);
    },
    async holders(passId: string): Promise<HolderBody[]> {
      const all: HolderBody[] = [];
      let cursor: string | null = null;
      do {
        const page = (
          await http()
            .get(`/v1/wallet-pass/${passId}/holders`)
            .query(cursor === null ? { limit: 20 } : { limit: 20, cursor })
            .set(owner.auth)
            .expect(200)
        ).body as { items: HolderBody[]; cursor: string | null };
        all.push(...page.items);
        cursor = page.cursor;
      } while (cursor !== null);
      return all;
    },
  };
}

/**
 * Waits until every token in `expected` was pushed (or `timeoutMs` passed), then a little longer
 * for stragglers, and returns what the APNs fake saw: the expected tokens never pushed and the
 * tokens pushed that were not expected.
 */
async function pushesReaching(
  apns: ApnsFake,
  expected: string[],
  timeoutMs = 60_000,
): Promise<{ missing: number; unexpected: number; pushed: string[] }> {
  const wanted = new Set(expected);
  const reached = () => {
    const pushed = new Set(apns.pushes.map((push) => push.token));
    return expected.every((token) => pushed.has(token));
  };
  await waitFor(reached, 'the pushes', timeoutMs).catch(() => undefined);
  await sleep(500);
  const pushed = [...new Set(apns.pushes.map((push) => push.token))];
  return {
    missing: expected.filter((token) => !pushed.includes(token)).length,
    unexpected: pushed.filter((token) => !wanted.has(token)).length,
    pushed,
  };
}

const elapsed = (startedAt: number) => `${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
const report = (line: string) => process.stdout.write(`[registration-launch ${TEST_DB}] ${line}\n`);

describe('Registrations at a launch: every valid registration is stored', () => {
  let walletA: WalletAApp;
  let server: Server;
  let phone: ReturnType<typeof passKit>;
  let api: ReturnType<typeof ownerApi>;

  beforeAll(async () => {
    // The launch limits are the defaults: only the client IP is read from X-Forwarded-For.
    walletA = await startWalletAApp({ TRUST_PROXY_HOPS: '1' });
    server = walletA.testApp.server;
    phone = passKit(server);
    api = ownerApi(walletA.owner);
  });
  afterAll(() => walletA.close());

  /**
   * Registers each phone for `serial` and fetches the pass right after, as Wallet does when a
   * pass is added; the statuses of both and the Last-Modified of the fetched version.
   */
  async function addPass(
    crowd: Phone[],
    serialOf: (index: number) => string,
    tokenOf: (index: number) => string,
  ): Promise<{ registered: number[]; fetched: number[]; lastModified: string | undefined }> {
    const registered: number[] = [];
    const fetched: number[] = [];
    let lastModified: string | undefined;
    await forEachLimited(crowd, CONCURRENCY, async (device, index) => {
      registered.push((await phone.register(device, serialOf(index), tokenOf(index))).status);
      const response = await phone.fetch(device, serialOf(index), tokenOf(index));
      fetched.push(response.status);
      lastModified ??= response.headers['last-modified'] as string | undefined;
    });
    return { registered, fetched, lastModified };
  }

  it(
    '600 phones adding the shared pass from one address: all stored, all pushed, all follow-ups answered',
    async () => {
      const pass = await api.createPass('Venue Wi-Fi');
      const crowd = phones(600, () => '203.0.113.10');
      const startedAt = Date.now();
      const added = await addPass(
        crowd,
        () => pass.id,
        () => pass.authToken,
      );
      report(`600 registrations + fetches from one address: ${elapsed(startedAt)}`);
      expect(statusCounts(added.registered)).toEqual({ 201: 600 });
      expect(statusCounts(added.fetched)).toEqual({ 200: 600 });
      expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 600, appleActiveCount: 600 });

      // Wallet's tag from before the change (the same for every phone of this one pass).
      const before = await phone.updated(crowd[0]).expect(200);
      const tag = (before.body as { lastUpdated: string }).lastUpdated;

      walletA.apns.reset();
      const changedAt = Date.now();
      await api.changePass(pass, 'Venue Wi-Fi', '100');
      const pushes = await pushesReaching(
        walletA.apns,
        crowd.map((device) => device.pushToken),
      );
      report(`change → 600 devices pushed: ${elapsed(changedAt)}`);
      expect({ missing: pushes.missing, unexpected: pushes.unexpected }).toEqual({
        missing: 0,
        unexpected: 0,
      });

      // Every phone asks what changed and fetches the new version, from the same address.
      const updated: number[] = [];
      const refetched: number[] = [];
      const followUpAt = Date.now();
      await forEachLimited(crowd, CONCURRENCY, async (device) => {
        const changes = await phone.updated(device, tag);
        updated.push(changes.status);
        if (changes.status === 200) {
          expect((changes.body as { serialNumbers: string[] }).serialNumbers).toEqual([pass.id]);
        }
        refetched.push(
          (await phone.fetch(device, pass.id, pass.authToken, added.lastModified)).status,
        );
      });
      report(`600 follow-ups (changes + fetch): ${elapsed(followUpAt)}`);
      expect(statusCounts(updated)).toEqual({ 200: 600 });
      expect(statusCounts(refetched)).toEqual({ 200: 600 });

      // A phone registering again is told it already was, and nothing moves.
      const again = await Promise.all(
        crowd.slice(0, 10).map((device) => phone.register(device, pass.id, pass.authToken)),
      );
      expect(statusCounts(again.map((response) => response.status))).toEqual({ 200: 10 });
      expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 600, appleActiveCount: 600 });
      report(`whole case: ${elapsed(startedAt)}`);
    },
    LAUNCH_TIMEOUT_MS,
  );

  it(
    '1,500 phones from 150 addresses adding one pass within a minute: all stored, all pushed',
    async () => {
      const pass = await api.createPass('Campaign e-mail');
      // Ten phones behind each of 150 addresses.
      const crowd = phones(1500, (index) => `198.18.0.${1 + (index % 150)}`);
      const startedAt = Date.now();
      const added = await addPass(
        crowd,
        () => pass.id,
        () => pass.authToken,
      );
      report(`1,500 registrations + fetches from 150 addresses: ${elapsed(startedAt)}`);
      expect(statusCounts(added.registered)).toEqual({ 201: 1500 });
      expect(statusCounts(added.fetched)).toEqual({ 200: 1500 });
      expect(await api.counters(pass.id)).toEqual({
        appleIssuedCount: 1500,
        appleActiveCount: 1500,
      });

      walletA.apns.reset();
      const changedAt = Date.now();
      await api.changePass(pass, 'Campaign e-mail', '100');
      const pushes = await pushesReaching(
        walletA.apns,
        crowd.map((device) => device.pushToken),
      );
      report(`change → 1,500 devices pushed: ${elapsed(changedAt)}`);
      expect({ missing: pushes.missing, unexpected: pushes.unexpected }).toEqual({
        missing: 0,
        unexpected: 0,
      });
      report(`whole case: ${elapsed(startedAt)}`);
    },
    LAUNCH_TIMEOUT_MS,
  );

  it(
    '400 employees behind one office address adding their own copies: all stored, all pushed',
    async () => {
      const pass = await api.createPass('Staff badge');
      const employees = await api.importHolders(
        pass.id,
        Array.from({ length: 400 }, (_, i) => `employee-${i}`),
      );
      expect(employees).toHaveLength(400);
      const office = '192.0.2.44';
      const crowd = phones(400, () => office);
      const startedAt = Date.now();
      // Each employee opens their own download link at the office and adds the package.
      const tokens: string[] = new Array<string>(400);
      await forEachLimited(employees, CONCURRENCY, async (holder, index) => {
        tokens[index] = await packageAuthToken(
          server,
          `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
          { 'X-Forwarded-For': office },
        );
      });
      report(`400 personal packages downloaded: ${elapsed(startedAt)}`);
      const registeredAt = Date.now();
      const added = await addPass(
        crowd,
        (index) => employees[index].serialNumber,
        (index) => tokens[index],
      );
      report(`400 registrations + fetches from one address: ${elapsed(registeredAt)}`);
      expect(statusCounts(added.registered)).toEqual({ 201: 400 });
      expect(statusCounts(added.fetched)).toEqual({ 200: 400 });
      const installed = (await api.holders(pass.id)).map((holder) => holder.appleInstalledCount);
      expect(statusCounts(installed)).toEqual({ 1: 400 });
      expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 400, appleActiveCount: 400 });

      walletA.apns.reset();
      const changedAt = Date.now();
      await api.changePass(pass, 'Staff badge', '100');
      const pushes = await pushesReaching(
        walletA.apns,
        crowd.map((device) => device.pushToken),
      );
      report(`change → 400 personal copies pushed: ${elapsed(changedAt)}`);
      expect({ missing: pushes.missing, unexpected: pushes.unexpected }).toEqual({
        missing: 0,
        unexpected: 0,
      });
      report(`whole case: ${elapsed(startedAt)}`);
    },
    LAUNCH_TIMEOUT_MS,
  );
});

describe('Registrations under abuse: bounded by what a source keeps, never refused', () => {
  let walletA: WalletAApp;
  let server: Server;
  let phone: ReturnType<typeof passKit>;
  let api: ReturnType<typeof ownerApi>;

  beforeAll(async () => {
    walletA = await startWalletAApp({
      TRUST_PROXY_HOPS: '1',
      PASSKIT_DEVICES_PER_SOURCE: '5',
      PASSKIT_DEVICES_PER_HOLDER: '3',
      PASSKIT_REFUSED_PER_IP_PER_MINUTE: '5',
    });
    server = walletA.testApp.server;
    phone = passKit(server);
    api = ownerApi(walletA.owner);
  });
  afterAll(() => walletA.close());

  /**
   * Registers the phones one after another, each a few milliseconds after the one before, so
   * that "newest" is well defined; the statuses.
   */
  async function registerInTurn(crowd: Phone[], serial: string, token: string): Promise<number[]> {
    const statuses: number[] = [];
    for (const device of crowd) {
      statuses.push((await phone.register(device, serial, token)).status);
      await sleep(3);
    }
    return statuses;
  }

  /** Lets jobs queued by setting things up (publishing, importing) finish before counting. */
  const settle = () => sleep(500);

  it("keeps a source's 5 newest devices of the shared pass: all 201, counters 5, the newest pushed", async () => {
    const pass = await api.createPass('Flooded');
    const flood = phones(12, () => '198.51.100.7');
    expect(statusCounts(await registerInTurn(flood, pass.id, pass.authToken))).toEqual({
      201: 12,
    });
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 5, appleActiveCount: 5 });
    // Replacing an older device moves no counter and announces nothing.
    expect(await api.installs(pass.id)).toEqual({ appleInstalls: 5, appleUninstalls: 0 });

    // Another source is counted on its own.
    const [neighbour] = phones(1, () => '198.51.100.8');
    await phone.register(neighbour, pass.id, pass.authToken).expect(201);
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 6, appleActiveCount: 6 });
    expect(await api.installs(pass.id)).toEqual({ appleInstalls: 6, appleUninstalls: 0 });

    await settle();
    walletA.apns.reset();
    await api.changePass(pass, 'Flooded', '100');
    const expected = [...flood.slice(7), neighbour].map((device) => device.pushToken);
    const pushes = await pushesReaching(walletA.apns, expected);
    expect(pushes.pushed.sort()).toEqual(expected.sort());
    // The retired devices cost nothing further: the counters did not move.
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 6, appleActiveCount: 6 });
  });

  it('counts an IPv6 source by its /64, and per pass', async () => {
    const pass = await api.createPass('Flooded over IPv6');
    const sameNetwork = phones(7, (index) => `2001:db8:1:2::${(index + 1).toString(16)}`);
    expect(statusCounts(await registerInTurn(sameNetwork, pass.id, pass.authToken))).toEqual({
      201: 7,
    });
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 5, appleActiveCount: 5 });
    const [otherNetwork] = phones(1, () => '2001:db8:1:3::1');
    await phone.register(otherNetwork, pass.id, pass.authToken).expect(201);
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 6, appleActiveCount: 6 });

    // The same /64 keeps its own 5 of another shared pass.
    const other = await api.createPass('Another shared pass');
    const [again] = phones(1, () => '2001:db8:1:2::99');
    await phone.register(again, other.id, other.authToken).expect(201);
    expect(await api.counters(other.id)).toEqual({ appleIssuedCount: 1, appleActiveCount: 1 });
  });

  it("keeps a holder's 3 newest devices; holders' copies are not limited per source", async () => {
    const pass = await api.createPass('Personal copies');
    const holders = await api.importHolders(
      pass.id,
      Array.from({ length: 8 }, (_, i) => `member-${i}`),
    );
    const tokens: string[] = [];
    for (const holder of holders) {
      tokens.push(
        await packageAuthToken(server, `${new URL(holder.downloadUrl).pathname}/pass.pkpass`),
      );
    }
    await settle();
    const [first, ...others] = holders;
    const [firstToken, ...otherTokens] = tokens;

    // One holder adds the copy on 5 devices, from 5 addresses: the 3 newest stay.
    const devices = phones(5, (index) => `192.0.2.${60 + index}`);
    expect(statusCounts(await registerInTurn(devices, first.serialNumber, firstToken))).toEqual({
      201: 5,
    });

    // 7 holders behind one address (more than PASSKIT_DEVICES_PER_SOURCE): every copy counts.
    const office = phones(others.length, () => '192.0.2.99');
    const statuses: number[] = [];
    for (const [index, holder] of others.entries()) {
      statuses.push(
        (await phone.register(office[index], holder.serialNumber, otherTokens[index])).status,
      );
    }
    expect(statusCounts(statuses)).toEqual({ 201: 7 });

    const installed = new Map(
      (await api.holders(pass.id)).map((holder) => [holder.id, holder.appleInstalledCount]),
    );
    expect(installed.get(first.id)).toBe(3);
    expect(others.map((holder) => installed.get(holder.id))).toEqual(others.map(() => 1));
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 10, appleActiveCount: 10 });
    expect(await api.installs(pass.id)).toEqual({ appleInstalls: 10, appleUninstalls: 0 });

    // A change of that holder reaches its 3 newest devices only.
    await settle();
    walletA.apns.reset();
    await request(server)
      .patch(`/v1/wallet-pass/${pass.id}/holders/${first.id}`)
      .set(walletA.owner.auth)
      .send({ fieldValues: { points: '300' } })
      .expect(200);
    const expected = devices.slice(2).map((device) => device.pushToken);
    const pushes = await pushesReaching(walletA.apns, expected);
    expect(pushes.pushed.sort()).toEqual(expected.sort());
  });

  it('answers 429 to an address after 5 refused tokens a minute, even with the right token', async () => {
    const pass = await api.createPass('Guessed');
    const [prober] = phones(1, () => '203.0.113.66');
    for (const wrong of [
      'not-the-token-0',
      'not-the-token-1',
      'not-the-token-2',
      undefined,
      undefined,
    ]) {
      await phone.register(prober, pass.id, wrong).expect(401);
    }
    const refused = await phone.register(prober, pass.id, pass.authToken).expect(429);
    expect(refused.body).toMatchObject({ errorCode: 'RATE_LIMITED' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Every PassKit device route of that address, fetches too, until the window ends.
    await phone.fetch(prober, pass.id, pass.authToken).expect(429);

    // Another address is not held up by this one.
    const [neighbour] = phones(1, () => '203.0.113.67');
    await phone.register(neighbour, pass.id, pass.authToken).expect(201);
    expect(await api.counters(pass.id)).toEqual({ appleIssuedCount: 1, appleActiveCount: 1 });
  });
});
