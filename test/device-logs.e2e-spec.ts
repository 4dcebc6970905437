import { newId } from '@app/core';
import { DeviceLogVerified1764140000000 } from '@app/core/database/migrations/1764140000000-device-log-verified';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { binaryBody } from './support/pkpass';
import { bearer, type TestApp } from './support/test-app';
import type { OwnerSession } from './support/session';
import { TEST_DB } from './support/test-database';
import {
  deviceToken,
  packageAuthToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAApp,
  type WalletAApp,
} from './support/walleta-env';

interface DeviceLogBody {
  message: string;
  count: number;
  firstTime: string;
  lastTime: string;
  serialNumber: string;
  holderId: string | null;
  verified: boolean;
}

interface DeviceLogPageBody {
  items: DeviceLogBody[];
  cursor: string | null;
  hasMore: boolean;
}

const PER_PASS = 5;
const PER_SOURCE = 3;

/** A line as Wallet writes it: the device's time, then what went wrong with which pass. */
const walletLine = (serial: string, error = 'Unexpected response code 401', at = '10:00:00') =>
  `[2026-11-26 ${at} +0000] Get pass task (pass type ${PASS_TYPE_ID}, serial number ${serial}, ` +
  'if-modified-since (null); with web service url https://wallet.test/passkit) encountered ' +
  `error: ${error}`;
/** The same line as it is kept: without the device's time. */
const kept = (line: string) => line.replace(/^\[[^\]]+\] /, '');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Device logs: what Wallet posts to the web service's `/log` is kept per pass by
 * the serial number it names, counted, bounded per pass and per source, and read back by the
 * pass's workspace only. Also HEAD on the web service's pass (answered like GET, no body).
 */
describe(`Device logs (${TEST_DB})`, () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    walletA = await startWalletAApp({
      // Clients are told apart by X-Forwarded-For, as behind a load balancer.
      TRUST_PROXY_HOPS: '1',
      PASSKIT_DEVICE_LOGS_PER_PASS: String(PER_PASS),
      PASSKIT_DEVICE_LOGS_PER_SOURCE_PER_HOUR: String(PER_SOURCE),
    });
    ({ testApp, owner } = walletA);
  });
  afterAll(() => walletA.close());

  // Each post from its own address unless told: `/log` takes 10 posts a minute per address.
  let address = 0;
  const nextIp = () => `198.51.100.${++address}`;
  const postLogs = (logs: string[], clientIp = nextIp()) =>
    request(testApp.server)
      .post('/passkit/v1/log')
      .set('X-Forwarded-For', clientIp)
      .send({ logs })
      .expect(200);
  const deviceLogs = (
    passId: string,
    query: Record<string, string | number> = {},
    auth = owner.auth,
  ) => request(testApp.server).get(`/v1/wallet-pass/${passId}/device-logs`).query(query).set(auth);
  const listed = async (passId: string, query: Record<string, string | number> = {}) =>
    ((await deviceLogs(passId, query).expect(200)).body as DeviceLogPageBody).items;
  const storedRows = async () =>
    Number(
      (
        await testApp.app
          .get(DataSource)
          .query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM wallet_a_device_log')
      )[0].n,
    );
  const storedLogs = (passId: string) =>
    testApp.app
      .get(DataSource)
      .query<{ id: string }[]>('SELECT id FROM wallet_a_device_log WHERE pass_id = ?', [passId]);
  const newPass = async () => (await publishedPassWithDevices(owner, 0)).pass;
  const newHolder = async (passId: string, externalId: string) =>
    (
      await request(testApp.server)
        .post(`/v1/wallet-pass/${passId}/holders`)
        .set(owner.auth)
        .send({ externalId })
        .expect(201)
    ).body as { id: string; serialNumber: string; downloadUrl: string };

  it('keeps a message naming the pass, without the device time, and lists it', async () => {
    const pass = await newPass();
    const line = walletLine(pass.id);
    const before = Date.now();
    const answer = await postLogs([line]);
    expect(answer.text).toBe('');

    const page = (await deviceLogs(pass.id).expect(200)).body as DeviceLogPageBody;
    expect(page).toEqual({
      items: [
        {
          message: kept(line),
          count: 1,
          firstTime: expect.any(String),
          lastTime: expect.any(String),
          serialNumber: pass.id,
          holderId: null,
          // Nothing ties this address to a device that holds the pass.
          verified: false,
        },
      ],
      cursor: null,
      hasMore: false,
    });
    const [entry] = page.items;
    expect(entry.firstTime).toBe(entry.lastTime);
    expect(Date.parse(entry.firstTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(entry.firstTime)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("keeps a message naming a holder's serial number under the pass, with the holder", async () => {
    const pass = await newPass();
    const alice = await newHolder(pass.id, 'alice');
    const bob = await newHolder(pass.id, 'bob');
    // A holder's serial number anywhere in the text (here in a URL) names it too.
    const aliceLine = `Web service error: GET https://wallet.test/passkit/v1/passes/${PASS_TYPE_ID}/${alice.serialNumber} -> 500`;
    await postLogs([walletLine(pass.id), aliceLine]);

    const items = await listed(pass.id);
    expect(items.map(({ serialNumber, holderId }) => ({ serialNumber, holderId }))).toEqual([
      { serialNumber: alice.serialNumber, holderId: alice.id },
      { serialNumber: pass.id, holderId: null },
    ]);
    expect(items[0].message).toBe(aliceLine);
    expect(await listed(pass.id, { holderId: alice.id })).toEqual([items[0]]);
    expect(await listed(pass.id, { holderId: bob.id })).toEqual([]);
  });

  it('counts a repeated message on one entry and moves its lastTime', async () => {
    const pass = await newPass();
    const [first, other] = [walletLine(pass.id), walletLine(pass.id, 'The request timed out')];
    await postLogs([first]);
    await sleep(20);
    await postLogs([other]);
    await sleep(20);
    // Posted again by the device an hour later, by its clock.
    await postLogs([walletLine(pass.id, undefined, '11:00:00')]);

    const items = await listed(pass.id);
    expect(items.map(({ message, count }) => ({ message, count }))).toEqual([
      { message: kept(first), count: 2 },
      { message: kept(other), count: 1 },
    ]);
    expect(Date.parse(items[0].lastTime)).toBeGreaterThan(Date.parse(items[0].firstTime));
    expect(Date.parse(items[0].lastTime)).toBeGreaterThan(Date.parse(items[1].lastTime));

    // Twice in one post: counted twice.
    await postLogs([first, first]);
    expect((await listed(pass.id))[0]).toMatchObject({ message: kept(first), count: 4 });
  });

  it('keeps nothing that names no serial number it knows, and still answers 200', async () => {
    const pass = await newPass();
    const deleted = await newPass();
    await request(testApp.server)
      .delete(`/v1/wallet-pass/${deleted.id}`)
      .set(owner.auth)
      .expect(204);
    const rows = await storedRows();
    await postLogs([
      walletLine(newId()),
      walletLine('E5982H-I2'),
      walletLine(deleted.id),
      "Web service error for pass.example.e2e: Response to 'What changed?' request included 1 serial numbers but the lastUpdated tag (1764000000) remained the same.",
      '',
    ]);
    await postLogs([]);
    expect(await storedRows()).toBe(rows);
    expect(await listed(pass.id)).toEqual([]);
  });

  it('stores text as data and answers it as JSON strings', async () => {
    const pass = await newPass();
    const text = `serial number ${pass.id} <script>alert(1)</script> "quoted" \\ \u0000\u001b[31m\u202e\u{1f600} é LONE`;
    // A lone surrogate, which JSON can carry and no UTF-8 column can store: U+FFFD instead.
    const body = JSON.stringify({ logs: [text] }).replace('LONE', '\\ud800');
    await request(testApp.server)
      .post('/passkit/v1/log')
      .set('X-Forwarded-For', nextIp())
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(200);
    expect((await listed(pass.id)).map((entry) => entry.message)).toEqual([
      text.replace('LONE', '\ufffd'),
    ]);

    // 2,000 characters are kept, and only they are read for a serial number.
    const long = `${pass.id} ${'y'.repeat(3000)}`;
    await postLogs([long, `${'y'.repeat(2000)} ${pass.id}`]);
    const messages = (await listed(pass.id)).map((entry) => entry.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toBe(long.slice(0, 2000));
  });

  it('keeps at most PASSKIT_DEVICE_LOGS_PER_PASS entries a pass, the least recently seen going', async () => {
    const pass = await newPass();
    const lines = Array.from({ length: PER_PASS + 2 }, (_, i) => walletLine(pass.id, `error ${i}`));
    for (const line of lines.slice(0, PER_PASS)) {
      await postLogs([line]);
      await sleep(5);
    }
    // The first is seen again: now the second and third are the least recently seen.
    await postLogs([lines[0]]);
    await sleep(5);
    await postLogs([lines[PER_PASS]]);
    await sleep(5);
    await postLogs([lines[PER_PASS + 1]]);

    const items = await listed(pass.id);
    expect(items.map((entry) => entry.message)).toEqual(
      [lines[6], lines[5], lines[0], lines[4], lines[3]].map(kept),
    );
  });

  it('takes at most PASSKIT_DEVICE_LOGS_PER_SOURCE_PER_HOUR new entries a pass from one address', async () => {
    const pass = await newPass();
    const other = await newPass();
    const source = '203.0.113.50';
    const lines = Array.from({ length: PER_SOURCE + 2 }, (_, i) =>
      walletLine(pass.id, `flood ${i}`),
    );
    await postLogs(lines, source);
    let items = await listed(pass.id);
    expect(items).toHaveLength(PER_SOURCE);

    // Over the bound: dropped without a word, but what is kept is still counted, another pass
    // has a budget of its own, and so has another address.
    await postLogs([lines[PER_SOURCE + 1], lines[0], walletLine(other.id)], source);
    items = await listed(pass.id);
    expect(items).toHaveLength(PER_SOURCE);
    expect(items.find((entry) => entry.message === kept(lines[0]))?.count).toBe(2);
    expect(await listed(other.id)).toHaveLength(1);
    await postLogs([lines[PER_SOURCE + 1]]);
    expect(await listed(pass.id)).toHaveLength(PER_SOURCE + 1);
  });

  it('answers 200 when the database fails to store, and keeps nothing', async () => {
    const pass = await newPass();
    const dataSource = testApp.app.get(DataSource);
    const original = dataSource.query.bind(dataSource);
    let refused = 0;
    const query = jest.spyOn(dataSource, 'query').mockImplementation((sql, parameters) => {
      if (!sql.startsWith('INSERT INTO wallet_a_device_log')) return original(sql, parameters);
      refused += 1;
      return Promise.reject(new Error('connection lost'));
    });
    try {
      await postLogs([walletLine(pass.id)]);
    } finally {
      query.mockRestore();
    }
    expect(refused).toBe(1);
    expect(await listed(pass.id)).toEqual([]);
  });

  it("is a 404 for another workspace's members, as the pass is", async () => {
    const pass = await newPass();
    await postLogs([walletLine(pass.id)]);
    const otherWorkspace = await owner.createWorkspace();
    const stranger = await owner.addMember('member', [otherWorkspace]);
    for (const auth of [
      bearer(stranger.token),
      { ...owner.auth, 'x-workspace-id': otherWorkspace },
    ]) {
      const answer = await deviceLogs(pass.id, {}, auth).expect(404);
      expect(answer.body).toMatchObject({ errorCode: 'NOT_FOUND', context: { id: pass.id } });
    }
    await deviceLogs(newId()).expect(404);
  });

  it('pages newest first with limit and cursor, each entry once', async () => {
    const pass = await newPass();
    const lines = Array.from({ length: PER_PASS }, (_, i) => walletLine(pass.id, `page ${i}`));
    // One post: the entries share a lastTime, and the id orders them within it.
    await postLogs(lines.slice(0, 3));
    await sleep(5);
    await postLogs(lines.slice(3));

    const seen: DeviceLogBody[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string | number> = { limit: 2 };
      if (cursor !== null) query.cursor = cursor;
      const page = (await deviceLogs(pass.id, query).expect(200)).body as DeviceLogPageBody;
      seen.push(...page.items);
      sizes.push(page.items.length);
      expect(page.hasMore).toBe(page.cursor !== null);
      cursor = page.cursor;
    } while (cursor !== null);

    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(await listed(pass.id));
    expect(new Set(seen.map((entry) => entry.message))).toEqual(new Set(lines.map(kept)));
    const times = seen.map((entry) => Date.parse(entry.lastTime));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(
      seen
        .slice(0, 2)
        .map((entry) => entry.message)
        .sort(),
    ).toEqual(lines.slice(3).map(kept).sort());
  });

  it('answers a bad holderId, cursor or limit with 400 and the Error body', async () => {
    const pass = await newPass();
    const idOnlyCursor = Buffer.from(JSON.stringify({ after: newId() })).toString('base64url');
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ holderId: 'not an id!' }, { holderId: 'must match ^[a-zA-Z0-9-_]+$' }],
      [{ cursor: 'garbage%' }, { cursor: 'is not a cursor returned by this list' }],
      [{ cursor: idOnlyCursor }, { cursor: 'is not a cursor returned by this list' }],
      [{ limit: '0' }, { limit: 'must not be less than 1' }],
    ];
    for (const [query, context] of cases) {
      const answer = await deviceLogs(pass.id, query).expect(400);
      expect(answer.body).toEqual({
        txId: expect.any(String),
        timestamp: expect.any(String),
        errorCode: 'INVALID_INPUT',
        context,
      });
    }
  });

  describe('verified', () => {
    const passUrl = (serial: string) => `/passkit/v1/passes/${PASS_TYPE_ID}/${serial}`;
    const fetchPass = (serial: string, token: string, clientIp: string) =>
      request(testApp.server)
        .get(passUrl(serial))
        .set('Authorization', `ApplePass ${token}`)
        .set('X-Forwarded-For', clientIp);
    const register = (serial: string, token: string, clientIp: string) =>
      request(testApp.server)
        .post(`/passkit/v1/devices/lib-${newId()}/registrations/${PASS_TYPE_ID}/${serial}`)
        .set('Authorization', `ApplePass ${token}`)
        .set('X-Forwarded-For', clientIp)
        .send({ pushToken: deviceToken(++address) });
    const summary = (items: DeviceLogBody[]) =>
      items
        .map(({ serialNumber, message, verified, count }) => ({
          serialNumber,
          message,
          verified,
          count,
        }))
        .sort((a, b) =>
          `${a.serialNumber} ${a.message} ${a.verified}`.localeCompare(
            `${b.serialNumber} ${b.message} ${b.verified}`,
          ),
        );

    it("marks what an address posts after sending that serial number's token, and nothing else", async () => {
      const { pass, authToken } = await publishedPassWithDevices(owner, 0);
      const alice = await newHolder(pass.id, 'alice');
      const bob = await newHolder(pass.id, 'bob');
      const aliceToken = await packageAuthToken(
        testApp.server,
        `${new URL(alice.downloadUrl).pathname}/pass.pkpass`,
      );
      const [phone, alicesPhone, stranger, guesser] = [nextIp(), nextIp(), nextIp(), nextIp()];
      // A phone fetches the shared pass; Alice's registers her copy; a guesser's token for
      // Bob's copy is refused, which ties it to nothing.
      await fetchPass(pass.id, authToken, phone).expect(200);
      await register(alice.serialNumber, aliceToken, alicesPhone).expect(201);
      await fetchPass(bob.serialNumber, aliceToken, guesser).expect(401);

      const shared = walletLine(pass.id, 'The request timed out');
      const [alices, bobs] = [walletLine(alice.serialNumber), walletLine(bob.serialNumber)];
      await postLogs([shared, alices, bobs], phone);
      await postLogs([alices, bobs], alicesPhone);
      await postLogs([shared], stranger);
      await postLogs([bobs], guesser);

      // The same message from a device and from anyone else: two entries, each counted apart.
      expect(summary(await listed(pass.id))).toEqual(
        summary([
          { serialNumber: pass.id, message: kept(shared), verified: true, count: 1 },
          { serialNumber: pass.id, message: kept(shared), verified: false, count: 1 },
          { serialNumber: alice.serialNumber, message: kept(alices), verified: true, count: 1 },
          { serialNumber: alice.serialNumber, message: kept(alices), verified: false, count: 1 },
          { serialNumber: bob.serialNumber, message: kept(bobs), verified: false, count: 3 },
        ] as DeviceLogBody[]),
      );

      // Posted again by the device: its own entry counts it, the stranger's does not move.
      await postLogs([shared], phone);
      const again = await listed(pass.id);
      expect(
        again
          .filter((entry) => entry.serialNumber === pass.id)
          .map(({ verified, count }) => ({ verified, count })),
      ).toEqual([
        { verified: true, count: 2 },
        { verified: false, count: 1 },
      ]);
    });

    it('reads entries kept before it as unverified; undone, a message keeps one entry', async () => {
      const { pass, authToken } = await publishedPassWithDevices(owner, 0);
      const [phone, stranger] = [nextIp(), nextIp()];
      await fetchPass(pass.id, authToken, phone).expect(200);
      const line = walletLine(pass.id);
      await postLogs([line], phone);
      await postLogs([line, walletLine(pass.id, 'Stranger text')], stranger);
      expect(await storedLogs(pass.id)).toHaveLength(3);

      const migration = new DeviceLogVerified1764140000000();
      const runner = testApp.app.get(DataSource).createQueryRunner();
      try {
        await migration.down(runner);
        expect(await storedLogs(pass.id)).toHaveLength(2);
        await migration.up(runner);
      } finally {
        await runner.release();
      }
      expect(summary(await listed(pass.id))).toEqual(
        summary([
          { serialNumber: pass.id, message: kept(line), verified: false, count: 1 },
          {
            serialNumber: pass.id,
            message: kept(walletLine(pass.id, 'Stranger text')),
            verified: false,
            count: 1,
          },
        ] as DeviceLogBody[]),
      );
      // The key has the column again: the device's next post is an entry of its own.
      await postLogs([line], phone);
      expect((await listed(pass.id)).filter((entry) => entry.message === kept(line))).toMatchObject(
        [
          { verified: true, count: 1 },
          { verified: false, count: 1 },
        ],
      );
    });
  });

  describe('HEAD on the web service pass', () => {
    const passUrl = (passId: string) => `/passkit/v1/passes/${PASS_TYPE_ID}/${passId}`;
    let pass: { id: string };
    let auth: Record<string, string>;
    let get: request.Response;

    beforeAll(async () => {
      const published = await publishedPassWithDevices(owner, 0);
      pass = published.pass;
      auth = { Authorization: `ApplePass ${published.authToken}` };
      get = await request(testApp.server)
        .get(passUrl(pass.id))
        .set(auth)
        .buffer(true)
        .parse(binaryBody)
        .expect(200);
    });

    /** The bytes of an answer as they come off the socket: HTTP clients drop a HEAD's body. */
    const rawHead = async (headers: Record<string, string>): Promise<string> => {
      const server = testApp.server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
        socket.write(
          `HEAD ${passUrl(pass.id)} HTTP/1.1\r\nHost: wallet.test\r\n${lines.join('')}` +
            'Connection: close\r\n\r\n',
        );
        const chunks: Buffer[] = [];
        for await (const chunk of socket) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('latin1');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    };

    it('answers 200 with the headers GET has, and no body', async () => {
      const head = await request(testApp.server).head(passUrl(pass.id)).set(auth).expect(200);
      for (const name of ['last-modified', 'etag', 'content-type', 'content-length']) {
        expect({ name, value: head.headers[name] }).toEqual({ name, value: get.headers[name] });
      }
      expect(head.headers['content-type']).toBe('application/vnd.apple.pkpass');
      expect(Number(head.headers['content-length'])).toBe((get.body as Buffer).length);

      const raw = await rawHead(auth);
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(raw.endsWith('\r\n\r\n')).toBe(true);
    });

    it('answers 304 to If-Modified-Since of the current version', async () => {
      const head = await request(testApp.server)
        .head(passUrl(pass.id))
        .set(auth)
        .set('If-Modified-Since', String(get.headers['last-modified']))
        .expect(304);
      expect(head.headers['etag']).toBe(get.headers['etag']);
    });

    it('answers 401 to a wrong token, without a body', async () => {
      await request(testApp.server)
        .head(passUrl(pass.id))
        .set('Authorization', 'ApplePass not-the-token')
        .expect(401);
      const raw = await rawHead({ Authorization: 'ApplePass not-the-token' });
      expect(raw).toMatch(/^HTTP\/1\.1 401 /);
      expect(raw.endsWith('\r\n\r\n')).toBe(true);
    });
  });
});
