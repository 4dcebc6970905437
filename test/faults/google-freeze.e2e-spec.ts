import { SyncJob } from '@app/wallet-b';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { GoogleWalletFake } from '../fakes/google-wallet-fake';
import { TcpProxy } from '../fakes/tcp-proxy';
import { makePng } from '../support/png';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';
import { waitFor } from '../support/walleta-env';

const ISSUER_ID = '3388000000044445555';
/** Each request to Google may take 1 s, a call (its tries) 2 s; the lease is 5 s, the least allowed. */
const GOOGLE_TIMEOUT_MS = 1000;
const LEASE_MS = 5000;
/** Longer than a call may take, so the sync's attempt fails rather than waiting it out. */
const FROZEN_MS = 8000;

/**
 * Google (its API and its OAuth endpoint, behind one proxy) stops answering without closing
 * anything while a pass change is synced to its class. The sync's attempt gives up after its
 * call budget (two request deadlines), the job goes back to pending with a timeout as its last
 * error and is retried on its own schedule after the thaw, where it succeeds. No lease runs out
 * while a call is out (a job the worker still works on always has a live lease), the class is
 * patched once, and the API answers as ever meanwhile.
 */
describe(`Google frozen while a WalletB sync runs (${TEST_DB})`, () => {
  let google: GoogleWalletFake;
  let proxy: TcpProxy;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    google = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(google.url).port) });
    // Token requests and API calls both go through the proxy.
    const through = `http://127.0.0.1:${proxy.port}`;
    google.reachAt({ url: through });
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...google.serviceEnv(),
      WALLET_B_API_URL: through,
      WALLET_B_TIMEOUT_MS: String(GOOGLE_TIMEOUT_MS),
      WORKER_LEASE_MS: String(LEASE_MS),
      WEBHOOK_TIMEOUT_MS: '3000',
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    proxy.restore();
    await testApp.close();
    await proxy.close();
    await google.close();
  });

  const jobs = () => testApp.app.get(DataSource).getRepository(SyncJob);

  it("fails the sync's attempt within its budget, keeps the lease, and syncs after the thaw", async () => {
    const images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    const metadata = (tier: string) => ({
      passType: 'generic',
      description: 'Card',
      organizationName: 'Brand',
      secondaryFields: [{ key: 'tier', label: 'Tier', value: tier }],
    });
    const pass = (
      await request(testApp.server)
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({
          passName: 'Frozen Google',
          passMetadata: metadata('Before'),
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(201)
    ).body as { id: string };
    const classId = `${ISSUER_ID}.${pass.id}`;
    /** What the class at Google shows as the tier. */
    const tier = () =>
      (
        google.classes.get(classId)?.textModulesData as { id: string; body: string }[] | undefined
      )?.find((module) => module.id === 'tier')?.body;
    await waitFor(() => tier() === 'Before', 'the class at Google');
    await waitFor(async () => (await jobs().countBy({ state: 'pending' })) === 0, 'the first sync');

    proxy.freeze();
    const frozenAt = Date.now();
    google.reset();
    await request(testApp.server)
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({ passName: 'Frozen Google', passMetadata: metadata('After'), uploadInfoList: images })
      .expect(200);

    // While frozen: the job, sampled, never works past its lease; the API answers at once.
    const errors = new Set<string>();
    let expiredWhileWorked = 0;
    let slowestApiMs = 0;
    const sample = async () => {
      const now = Date.now();
      for (const job of await jobs().findBy({ passId: pass.id })) {
        if (job.lastError !== null) errors.add(job.lastError);
        if (
          job.state === 'processing' &&
          job.leaseUntil !== null &&
          job.leaseUntil.getTime() < now
        ) {
          expiredWhileWorked++;
        }
      }
    };
    while (Date.now() - frozenAt < FROZEN_MS) {
      const started = Date.now();
      await request(testApp.server).get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200);
      slowestApiMs = Math.max(slowestApiMs, Date.now() - started);
      await sample();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const failedWhileFrozen = [...errors];
    proxy.restore();
    const thawed = Date.now();

    await waitFor(() => tier() === 'After', 'the sync after the thaw', 40_000);
    const synced = Date.now() - thawed;
    await waitFor(
      async () => (await jobs().countBy({ passId: pass.id, state: 'pending' })) === 0,
      'the job to finish',
    );
    await sample();
    const [job] = await jobs().find({ where: { passId: pass.id }, order: { id: 'DESC' }, take: 1 });

    // The class must change once: what a timed-out request had sent never reaches Google.
    const patched = google
      .callsTo('PATCH', '/walletobjects/v1/genericClass/')
      .filter((call) => call.status === 200);
    process.stdout.write(
      `[faults] Google frozen ${FROZEN_MS} ms during a class sync (${TEST_DB}), ` +
        `WALLET_B_TIMEOUT_MS=${GOOGLE_TIMEOUT_MS} WORKER_LEASE_MS=${LEASE_MS}: attempts=${job.attempts}, ` +
        `errors while frozen: ${failedWhileFrozen.join(' | ')}; leases expired while worked=${expiredWhileWorked}; ` +
        `synced ${synced} ms after the thaw; class patched ${patched.length}x; slowest API answer ${slowestApiMs} ms\n`,
    );
    expect(failedWhileFrozen.length).toBeGreaterThan(0);
    expect(failedWhileFrozen.every((error) => /timed out/.test(error))).toBe(true);
    expect(expiredWhileWorked).toBe(0);
    expect(job).toMatchObject({ state: 'done', lastError: null });
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(slowestApiMs).toBeLessThan(1000);
    expect(patched).toHaveLength(1);
  }, 90_000);
});
