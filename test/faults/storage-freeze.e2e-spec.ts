import { Upload } from '@app/uploads';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { S3Fake } from '../fakes/s3-fake';
import { TcpProxy } from '../fakes/tcp-proxy';
import { binaryBody } from '../support/pkpass';
import { makePng } from '../support/png';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';

/** How long the store is frozen, and how long any answer may take meanwhile. */
const FROZEN_MS = 20_000;
const ANSWER_WITHIN_MS = 5_000;

interface Timed {
  what: string;
  status: number;
  ms: number;
  retryAfter?: string;
  errorCode?: string;
}

/**
 * The S3-compatible store stops without closing anything (SIGSTOP, a stalled host): the proxy
 * in front of it holds every byte for 20 s while uploads and a package build go on. Each is
 * answered within 5 s, stored (2xx) or 503 with Retry-After in the spec's error body; once the
 * store answers again so do uploads, within 5 s; and no upload record points at an object the
 * store does not hold (a write that timed out is never recorded).
 */
describe(`Object storage frozen under upload traffic (${TEST_DB})`, () => {
  let store: S3Fake;
  let proxy: TcpProxy;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    store = await S3Fake.start();
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(store.url).port) });
    testApp = await startTestApp(store.serviceEnv(`http://127.0.0.1:${proxy.port}`));
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    proxy.restore();
    await testApp.close();
    await proxy.close();
    await store.close();
  });

  const timed = async (what: string, call: () => request.Test): Promise<Timed> => {
    const started = Date.now();
    const response = await call();
    // A package is read as bytes, its error answer too: that one is the spec's JSON body.
    const body = (
      Buffer.isBuffer(response.body) && response.status >= 400
        ? JSON.parse(response.body.toString('utf8'))
        : response.body
    ) as { errorCode?: string };
    return {
      what,
      status: response.status,
      ms: Date.now() - started,
      retryAfter: response.headers['retry-after'],
      errorCode: body.errorCode,
    };
  };
  let uploads = 0;
  const upload = () =>
    timed('upload', () =>
      request(testApp.server)
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', makePng({ width: 8 + (uploads++ % 50) }), 'logo.png'),
    );
  const packageOf = (slug: string) =>
    timed('package', () =>
      request(testApp.server).get(`/p/${slug}/pass.pkpass`).buffer(true).parse(binaryBody),
    );

  it('answers uploads and package builds within 5 s while the store is frozen, and stores again after the thaw', async () => {
    // A Published pass whose package was never built: building it reads its images.
    const images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    const pass = (
      await request(testApp.server)
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({
          passName: 'Frozen store',
          passMetadata: { description: 'Card', organizationName: 'Brand' },
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(201)
    ).body as { slug: string };
    expect((await upload()).status).toBe(201);

    proxy.freeze();
    const frozenAt = Date.now();
    const during: Timed[] = [];
    while (Date.now() - frozenAt < FROZEN_MS - ANSWER_WITHIN_MS) {
      during.push(...(await Promise.all([upload(), upload(), packageOf(pass.slug)])));
    }
    // The rest of the freeze: nothing may still be waiting when the store thaws.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, frozenAt + FROZEN_MS - Date.now())),
    );
    proxy.restore();

    const thawed = Date.now();
    const after = await Promise.all([upload(), upload(), packageOf(pass.slug)]);
    const recovery = Date.now() - thawed;

    for (const answer of during) {
      expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
      if (answer.status !== 200 && answer.status !== 201) {
        expect(answer).toMatchObject({ status: 503, errorCode: 'UNAVAILABLE' });
        expect(answer.retryAfter).toBeDefined();
      }
    }
    expect(during.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
    expect(after.map((answer) => answer.status)).toEqual([201, 201, 200]);
    expect(recovery).toBeLessThan(ANSWER_WITHIN_MS);

    // Every recorded upload has its object. An object without a record is allowed (a write
    // that reached the store after its request gave up); the proxy drops what a timed-out write
    // had sent once its connection is closed, so none is expected here.
    const rows = await testApp.app.get(DataSource).getRepository(Upload).find();
    const missing = rows.filter((row) => {
      const slash = row.storageKey.indexOf('/');
      return !store.holds(
        `test-${row.storageKey.slice(0, slash)}`,
        row.storageKey.slice(slash + 1),
      );
    });
    expect(missing.map((row) => row.storageKey)).toEqual([]);
    // Objects beside the uploads are the package build's image scales (`<upload>.derived/`).
    const uploadObjects = [...store.objects.keys()].filter((id) => !id.includes('.derived/'));
    const orphans = uploadObjects.length - rows.length;

    const slowest = Math.max(...during.map((answer) => answer.ms));
    const count = (what: string, status: number) =>
      during.filter((answer) => answer.what === what && answer.status === status).length;
    process.stdout.write(
      `[faults] S3 frozen ${FROZEN_MS} ms (${TEST_DB}): ${during.length} answers while frozen ` +
        `(uploads 201=${count('upload', 201)} 503=${count('upload', 503)}, packages ` +
        `200=${count('package', 200)} 503=${count('package', 503)}), slowest ${slowest} ms; ` +
        `after the thaw ${after.map((answer) => answer.status).join(',')} in ${recovery} ms; ` +
        `upload records=${rows.length}, upload objects=${uploadObjects.length} (without a record: ${orphans})\n`,
    );
  }, 90_000);
});
