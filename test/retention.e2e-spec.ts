import { newId, RetentionWorker } from '@app/core';
import {
  Notification,
  NotificationDelivery,
  NotificationShard,
  type ShardState,
} from '@app/notifications';
import { DeviceLog, PushJob, type PushJobState } from '@app/wallet-a';
import { SyncJob, WalletBCallback, type SyncJobState } from '@app/wallet-b';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 3;

/**
 * Retention (RETENTION_DAYS, default 30): finished push and sync jobs, deliveries of finished
 * notifications, expired WalletB callback nonces and device logs not seen for that long are
 * deleted in batches; everything recent or unfinished stays, and so do the notifications and
 * their counters.
 */
describe(`Retention (${TEST_DB})`, () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let dataSource: DataSource;
  let worker: RetentionWorker;

  beforeAll(async () => {
    testApp = await startTestApp({
      // The test runs the worker itself.
      WORKER_ENABLED: 'false',
      RETENTION_BATCH_SIZE: String(BATCH),
    });
    owner = await OwnerSession.start(testApp.server);
    dataSource = testApp.app.get(DataSource);
    worker = testApp.app.get(RetentionWorker);
  });
  afterAll(async () => {
    await testApp?.close();
  });

  const ago = (days: number) => new Date(Date.now() - days * DAY_MS);

  const newPass = async (passName: string) =>
    (
      await request(testApp.server)
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName, passMetadata: { description: 'Card', organizationName: 'Brand' } })
        .expect(201)
    ).body as { id: string };

  const newNotification = async (passId: string, status: string, sent: number) => {
    const { id } = (
      await request(testApp.server)
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .send({ passSerialNumber: passId, notificationName: status, notificationMessage: 'Hi' })
        .expect(201)
    ).body as { id: string };
    await dataSource.query(
      'UPDATE notification SET status = ?, apple_sent_count = ?, total_sent_count = ? WHERE id = ?',
      [status, sent, sent, id],
    );
    return id;
  };

  const ids = async (table: string, key = 'id') =>
    (await dataSource.query<{ k: string }[]>(`SELECT ${key} AS k FROM ${table}`))
      .map((row) => row.k)
      .sort();

  it('deletes old finished rows in bounded batches and keeps the rest', async () => {
    const workspaceId = owner.defaultWorkspaceId;
    const [p1, p2] = [await newPass('Retention 1'), await newPass('Retention 2')];

    const pushJob = (state: PushJobState, finished: Date | null, created = ago(41)) => {
      const id = newId();
      return {
        id,
        workspaceId,
        passId: p1.id,
        passVersion: 1,
        state,
        lastRegistrationId: null,
        createdTime: created,
        updatedTime: finished ?? created,
        finishedTime: finished,
      };
    };
    const oldPushJobs = [
      ...Array.from({ length: 7 }, () => pushJob('done', ago(40))),
      pushJob('superseded', ago(40)),
    ];
    const keptPushJobs = [
      pushJob('done', ago(10)),
      pushJob('pending', null),
      pushJob('processing', null),
    ];
    await dataSource.getRepository(PushJob).insert([...oldPushJobs, ...keptPushJobs]);

    const syncJob = (passId: string, state: SyncJobState, finished: Date | null) => ({
      id: newId(),
      workspaceId,
      passId,
      state,
      nextAttemptTime: ago(41),
      lastObjectId: null,
      objectHash: state === 'done' ? 'hash' : null,
      lastError: null,
      createdTime: ago(41),
      updatedTime: finished ?? ago(41),
      finishedTime: finished,
    });
    const oldSyncJobs = [
      syncJob(p1.id, 'done', ago(40)),
      syncJob(p1.id, 'done', ago(35)),
      syncJob(p1.id, 'failed', ago(40)),
      syncJob(p1.id, 'superseded', ago(40)),
    ];
    const keptSyncJobs = [
      syncJob(p1.id, 'done', ago(10)),
      syncJob(p1.id, 'pending', null),
      // The latest done job of its pass: its object hash is still needed, however old.
      syncJob(p2.id, 'done', ago(40)),
    ];
    await dataSource.getRepository(SyncJob).insert([...oldSyncJobs, ...keptSyncJobs]);

    const callback = (nonce: string, received: Date, expires: Date | null) => ({
      nonce,
      eventType: 'save' as const,
      objectId: `object-${nonce}`,
      passId: p1.id,
      receivedTime: received,
      expiresTime: expires,
    });
    await dataSource
      .getRepository(WalletBCallback)
      .insert([
        callback('expired', ago(1), new Date(Date.now() - 3600_000)),
        callback('valid', ago(1), new Date(Date.now() + 3600_000)),
        callback('legacy-old', ago(40), null),
        callback('legacy-recent', ago(10), null),
      ]);

    const published = await newNotification(p1.id, 'Published', 6);
    const running = await newNotification(p1.id, 'Processing', 2);
    const delivery = (notificationId: string, created: Date) => ({
      id: newId(),
      notificationId,
      registrationId: newId(),
      outcome: 'sent' as const,
      reason: null,
      createdTime: created,
    });
    const oldDeliveries = Array.from({ length: 5 }, () => delivery(published, ago(40)));
    const keptDeliveries = [
      delivery(published, ago(10)),
      delivery(running, ago(40)),
      delivery(running, ago(40)),
    ];
    await dataSource
      .getRepository(NotificationDelivery)
      .insert([...oldDeliveries, ...keptDeliveries]);
    // A notification's shards go with its deliveries: done, of a finished notification, old.
    const shard = (notificationId: string, state: ShardState, updated: Date, position: number) => ({
      id: newId(),
      workspaceId,
      notificationId,
      position,
      afterId: null,
      upToId: null,
      fanoutCursor: null,
      state,
      leaseUntil: null,
      leasedBy: null,
      attempts: 1,
      createdTime: ago(41),
      updatedTime: updated,
      createdBy: null,
      updatedBy: null,
    });
    const oldShards = [shard(published, 'done', ago(40), 0), shard(published, 'done', ago(40), 1)];
    const keptShards = [
      shard(published, 'done', ago(10), 2),
      shard(running, 'done', ago(40), 0),
      shard(running, 'open', ago(40), 1),
    ];
    await dataSource.getRepository(NotificationShard).insert([...oldShards, ...keptShards]);
    // Device logs go when they were last seen long ago, however long ago they were first seen.
    const deviceLog = (first: Date, last: Date) => ({
      id: newId(),
      workspaceId,
      passId: p1.id,
      holderId: null,
      serialNumber: p1.id,
      message: `Get pass task failed ${newId()}`,
      messageHash: newId(),
      count: 2,
      firstTime: first,
      lastTime: last,
    });
    const oldDeviceLogs = [deviceLog(ago(50), ago(40)), deviceLog(ago(31), ago(31))];
    const keptDeviceLogs = [deviceLog(ago(50), ago(10)), deviceLog(ago(1), ago(1))];
    await dataSource.getRepository(DeviceLog).insert([...oldDeviceLogs, ...keptDeviceLogs]);
    const notificationsBefore = await dataSource.query<Record<string, unknown>[]>(
      'SELECT id, status, apple_sent_count, total_sent_count FROM notification ORDER BY id',
    );

    // A per-run cap below what is due: the rest waits for the next run.
    const statements: string[][] = [];
    const original = dataSource.query.bind(dataSource);
    const query = jest.spyOn(dataSource, 'query').mockImplementation((sql, parameters) => {
      if (sql.startsWith('DELETE') && Array.isArray(parameters)) {
        statements.push(parameters.map(String));
      }
      return original(sql, parameters);
    });
    const retention = testApp.config.retention;
    retention.maxRowsPerRun = 4;
    let first: Record<string, number>;
    try {
      first = await worker.tick();
    } finally {
      retention.maxRowsPerRun = 100_000;
    }
    expect(first.wallet_a_push_job).toBe(4);
    const second = await worker.tick();
    query.mockRestore();

    expect(first.wallet_a_push_job + second.wallet_a_push_job).toBe(oldPushJobs.length);
    expect(first.wallet_b_sync_job + second.wallet_b_sync_job).toBe(oldSyncJobs.length);
    expect(first.wallet_b_callback + second.wallet_b_callback).toBe(2);
    expect(first.notification_delivery + second.notification_delivery).toBe(oldDeliveries.length);
    expect(first.notification_shard + second.notification_shard).toBe(oldShards.length);
    expect(first.wallet_a_device_log + second.wallet_a_device_log).toBe(oldDeviceLogs.length);
    // Every statement deleted at most one batch; 8 old push jobs took several.
    expect(statements.every((keys) => keys.length >= 1 && keys.length <= BATCH)).toBe(true);
    const pushKeys = new Set(oldPushJobs.map((job) => job.id));
    expect(statements.filter((keys) => pushKeys.has(keys[0])).length).toBe(4);

    expect(await ids('wallet_a_push_job')).toEqual(keptPushJobs.map((job) => job.id).sort());
    expect(await ids('wallet_b_sync_job')).toEqual(keptSyncJobs.map((job) => job.id).sort());
    expect(await ids('wallet_b_callback', 'nonce')).toEqual(['legacy-recent', 'valid']);
    expect(await ids('notification_delivery')).toEqual(keptDeliveries.map((row) => row.id).sort());
    expect(await ids('notification_shard')).toEqual(keptShards.map((row) => row.id).sort());
    expect(await ids('wallet_a_device_log')).toEqual(keptDeviceLogs.map((row) => row.id).sort());
    expect(
      await dataSource.query<Record<string, unknown>[]>(
        'SELECT id, status, apple_sent_count, total_sent_count FROM notification ORDER BY id',
      ),
    ).toEqual(notificationsBefore);

    // Nothing more to do: a run (or another process's run at the same time) deletes nothing.
    // Every registered table is in each run's answer, with nothing deleted.
    const [third, fourth] = await Promise.all([worker.tick(), worker.tick()]);
    expect(Object.keys(third)).toEqual(
      expect.arrayContaining([
        'wallet_a_push_job',
        'wallet_b_sync_job',
        'wallet_b_callback',
        'notification_delivery',
        'notification_shard',
        'wallet_a_device_log',
      ]),
    );
    expect(Object.keys(fourth)).toEqual(Object.keys(third));
    expect(
      Object.values(third)
        .concat(Object.values(fourth))
        .filter((n) => n !== 0),
    ).toEqual([]);
  });

  it('deletes the audience snapshots of old finished notifications, by (snapshot, holder)', async () => {
    const pass = await newPass('Retention audiences');
    const finished = async (status: string, published: Date | null) => {
      const id = await newNotification(pass.id, status, 0);
      await dataSource.getRepository(Notification).update({ id }, { publishedTime: published });
      return id;
    };
    const old = await finished('Published', ago(40));
    const oldFailed = await finished('Failed', ago(35));
    const recent = await finished('Published', ago(10));
    const running = await finished('Processing', null);
    // A bulk change's snapshot: not a notification's, so not this rule's.
    const bulk = newId();
    const members = (snapshotId: string, count: number) =>
      Array.from({ length: count }, () => [snapshotId, newId()] as const);
    const gone = [...members(old, 5), ...members(oldFailed, 2)];
    const kept = [...members(recent, 2), ...members(running, 2), ...members(bulk, 2)];
    for (const [snapshotId, holderId] of [...gone, ...kept]) {
      await dataSource.query('INSERT INTO audience_member (snapshot_id, holder_id) VALUES (?, ?)', [
        snapshotId,
        holderId,
      ]);
    }

    const statements: unknown[][] = [];
    const original = dataSource.query.bind(dataSource);
    const query = jest.spyOn(dataSource, 'query').mockImplementation((sql, parameters) => {
      if (sql.startsWith('DELETE FROM audience_member') && Array.isArray(parameters)) {
        statements.push(parameters);
      }
      return original(sql, parameters);
    });
    let deleted: Record<string, number>;
    try {
      deleted = await worker.tick();
    } finally {
      query.mockRestore();
    }
    expect(deleted.audience_member).toBe(gone.length);
    // One batch per statement: at most BATCH rows, two key values each.
    expect(statements.length).toBe(Math.ceil(gone.length / BATCH));
    expect(statements.every((values) => values.length <= 2 * BATCH)).toBe(true);
    const left = await dataSource.query<{ snapshot_id: string; holder_id: string }[]>(
      'SELECT snapshot_id, holder_id FROM audience_member',
    );
    const key = ([snapshotId, holderId]: readonly [string, string]) => `${snapshotId}/${holderId}`;
    expect(left.map((row) => key([row.snapshot_id, row.holder_id])).sort()).toEqual(
      kept.map(key).sort(),
    );
    expect((await worker.tick()).audience_member).toBe(0);
  });
});
