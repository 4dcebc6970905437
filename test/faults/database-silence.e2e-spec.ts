import request, { type Response } from 'supertest';
import { TcpProxy } from '../fakes/tcp-proxy';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, TEST_DB } from '../support/test-database';
import { isErrorBody } from '../support/error-body';

/**
 * The MariaDB host stops answering without closing anything (powered off, partitioned, packets
 * dropped): the proxy between the app and the server swallows every byte both ways and keeps
 * the sockets open. Requests must not wait for TCP to give up: API requests answer 503 with
 * the Error body within 5 s, `/health` within 2 s, and once bytes flow again requests succeed
 * without a restart (connections that timed out were destroyed, not returned to the pool).
 *
 * MariaDB only: an SQLite file has no host to go silent (its outage is a lock, see
 * database-outage.e2e-spec.ts).
 */

const MYSQL = TEST_DB === 'mysql';
const API_BOUND_MS = 5000;
const HEALTH_BOUND_MS = 2000;
/** Rounds of parallel requests during the silence: more than the pool (10) can hold stuck. */
const ROUNDS = 3;
const PARALLEL = 6;
const RECOVERY_BOUND_MS = 5000;

interface Timed {
  what: string;
  ms: number;
  status: number;
  body: unknown;
}

const isUnavailableBody = (body: unknown): boolean => isErrorBody(body, 'UNAVAILABLE');

(MYSQL ? describe : describe.skip)(`Database host gone silent (${TEST_DB})`, () => {
  let testApp: TestApp;
  let proxy: TcpProxy;
  let owner: OwnerSession;

  beforeAll(async () => {
    const database = await createTestDatabase();
    const direct = new URL(database.env.DB_URL);
    proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 3306) });
    const viaProxy = new URL(direct);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    testApp = await startTestApp(
      {
        DB_URL: viaProxy.toString(),
        RATE_LIMIT_PER_MINUTE: '1000000',
        // The workers poll through the same pool, as in production.
        SCHEDULER_INTERVAL_MS: '200',
      },
      database,
    );
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    proxy?.restore();
    await testApp?.close();
    await proxy?.close();
  });

  const timed = async (what: string, send: () => request.Test): Promise<Timed> => {
    const startedAt = Date.now();
    let response: Response | undefined;
    try {
      // Far beyond the bounds: a hang shows as status 0 and a time over the bound.
      response = await send().timeout(30_000);
    } catch {
      // Recorded as status 0 below.
    }
    return {
      what,
      ms: Date.now() - startedAt,
      status: response?.status ?? 0,
      body: response?.body,
    };
  };

  const createPass = (name: string) => () =>
    request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName: name, passMetadata: { description: 'Card', organizationName: 'Brand' } });

  it('answers 503 within seconds while the host is silent and recovers by itself', async () => {
    const pass = (await createPass('Before the silence')().expect(201)).body as { id: string };
    const readPass = () => () =>
      request(testApp.server).get(`/v1/wallet-pass/${pass.id}`).set(owner.auth);
    const health = () => () => request(testApp.server).get('/health');

    proxy.silence();
    const silentAt = Date.now();
    const during: Timed[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const calls = Array.from({ length: PARALLEL }, (_, k) =>
        k % 2 === 0
          ? timed('read', readPass())
          : timed('create', createPass(`During the silence ${round}-${k}`)),
      );
      calls.push(timed('health', health()));
      during.push(...(await Promise.all(calls)));
    }
    const silentFor = Date.now() - silentAt;

    const api = during.filter((call) => call.what !== 'health');
    const probes = during.filter((call) => call.what === 'health');
    expect(api.filter((call) => call.status !== 503 || !isUnavailableBody(call.body))).toEqual([]);
    expect(api.filter((call) => call.ms >= API_BOUND_MS)).toEqual([]);
    expect(probes.filter((call) => call.status !== 503 || call.ms >= HEALTH_BOUND_MS)).toEqual([]);

    proxy.restore();
    const restoredAt = Date.now();
    let firstOk: Timed | undefined;
    while (Date.now() - restoredAt < RECOVERY_BOUND_MS * 2) {
      const call = await timed('read', readPass());
      if (call.status === 200) {
        firstOk = call;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const recoveredIn = Date.now() - restoredAt;
    expect(firstOk).toBeDefined();
    expect(recoveredIn).toBeLessThan(RECOVERY_BOUND_MS);

    // Every connection of the pool is usable again: more parallel requests than it holds.
    const after = await Promise.all(
      Array.from({ length: 12 }, (_, k) =>
        k % 2 === 0 ? timed('read', readPass()) : timed('create', createPass(`After ${k}`)),
      ),
    );
    expect(after.filter((call) => call.status !== 200 && call.status !== 201)).toEqual([]);
    await request(testApp.server)
      .get('/health')
      .expect(200)
      .expect({ status: 'ok', database: 'up' });

    const slowest = (calls: Timed[]) => Math.max(...calls.map((call) => call.ms));
    const fastest = (calls: Timed[]) => Math.min(...calls.map((call) => call.ms));
    process.stdout.write(
      `[faults] database silent (${TEST_DB}, ${silentFor} ms): api requests=${api.length} ` +
        `503 in ${fastest(api)}-${slowest(api)} ms; /health=${probes.length} ` +
        `503 in ${fastest(probes)}-${slowest(probes)} ms; first 2xx ${recoveredIn} ms after ` +
        `the bytes flowed again; ${after.length} requests after it all 2xx\n`,
    );
  });
});
