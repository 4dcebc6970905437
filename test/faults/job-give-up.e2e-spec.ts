import request from 'supertest';
import { DataSource } from 'typeorm';
import { makePng } from '../support/png';
import { OwnerSession } from '../support/session';
import { startTestApp, type TestApp } from '../support/test-app';
import { TEST_DB } from '../support/test-database';
import { waitFor } from '../support/walleta-env';

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand',
  topField: { key: 'points', label: 'Points', value: '0' },
  qrUrl: 'https://brand.example/member',
};

interface JobBody {
  id: string;
  status: string;
  failureReason: string | null;
}

/**
 * A leased job the worker cannot run ends Failed with a reason after a bounded number of
 * attempts, instead of being claimed again every lease for good. The fault: the table every
 * audience's snapshot is written to is gone (renamed away), so each attempt at a notification
 * or a bulk change to an audience fails in the database. The lease is short here, so the
 * back-off between attempts (at most one lease) keeps the test short; with the table back, the
 * same work goes through, so nothing else was left stuck.
 */
describe(`A job the worker cannot run (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let dataSource: DataSource;
  let passId: string;

  const http = () => request(testApp.server);
  const table = (name: string) => (TEST_DB === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const rename = (from: string, to: string) =>
    dataSource.query(`ALTER TABLE ${table(from)} RENAME TO ${table(to)}`);

  beforeAll(async () => {
    testApp = await startTestApp({
      WORKER_LEASE_MS: '1500',
      WEBHOOK_TIMEOUT_MS: '500',
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    dataSource = testApp.app.get(DataSource);
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    passId = (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName: 'Give up', passMetadata: METADATA, status: 'Published', uploadInfoList })
        .expect(201)
    ).body.id as string;
    for (const externalId of ['a', 'b']) {
      await http()
        .post(`/v1/wallet-pass/${passId}/holders`)
        .set(owner.auth)
        .send({ externalId, tags: ['gold'] })
        .expect(201);
    }
  });
  afterAll(() => testApp.close());

  const finished = async (path: string, final: (status: string) => boolean) => {
    let job: JobBody | undefined;
    await waitFor(
      async () => {
        job = (await http().get(path).set(owner.auth).expect(200)).body as JobBody;
        return final(job.status);
      },
      `${path} to end`,
      60_000,
    );
    return job!;
  };
  const notificationPath = (id: string) => `/v1/wallet-pass/notifications/${id}`;
  const bulkPath = (id: string) => `/v1/wallet-pass/${passId}/holders/bulk/${id}`;
  const notificationEnded = (status: string) =>
    !['Processing', 'Initializing', 'Finalizing'].includes(status);
  const bulkEnded = (status: string) => status === 'Done' || status === 'Failed';

  const notify = async () =>
    (
      await http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({
          passSerialNumber: passId,
          notificationName: 'Gold',
          notificationMessage: 'Hello',
          audience: { tag: 'gold' },
        })
        .expect(201)
    ).body.id as string;
  const bulk = async () =>
    (
      await http()
        .post(`/v1/wallet-pass/${passId}/holders/bulk`)
        .set(owner.auth)
        .send({ audience: { tag: 'gold' }, addTags: ['seen'] })
        .expect(202)
    ).body.id as string;

  it('fails a notification and a bulk change with a reason after bounded attempts', async () => {
    await rename('audience_member', 'audience_member_away');
    try {
      const notificationId = await notify();
      const bulkId = await bulk();
      const notification = await finished(notificationPath(notificationId), notificationEnded);
      expect(notification.status).toBe('Failed');
      expect(notification.failureReason).toMatch(
        /^Given up after 8 failed attempts: the database could not run a statement/,
      );
      expect(notification.failureReason).not.toMatch(/INSERT|SELECT|audience_member/);
      const change = await finished(bulkPath(bulkId), bulkEnded);
      expect(change).toMatchObject({
        status: 'Failed',
        failureReason: expect.stringMatching(/^Given up after 8 failed attempts/),
      });
    } finally {
      await rename('audience_member_away', 'audience_member');
    }
    // The same work, with the table back, goes through: nothing else is left stuck.
    const notification = await finished(notificationPath(await notify()), notificationEnded);
    expect(notification).toMatchObject({ status: 'Failed', failureReason: expect.any(String) });
    expect(notification.failureReason).not.toMatch(/Given up/);
    const change = await finished(bulkPath(await bulk()), bulkEnded);
    expect(change).toMatchObject({ status: 'Done', failureReason: null });
  }, 180_000);
});
