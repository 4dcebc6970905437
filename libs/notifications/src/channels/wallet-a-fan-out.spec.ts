import { dataSourceOptions, Lease, newId } from '@app/core';
import { Registration, type RegistrationFanOut } from '@app/wallet-a';
import { DataSource, In } from 'typeorm';
import { NotificationDelivery } from '../entities/notification-delivery.entity';
import { NotificationShard } from '../entities/notification-shard.entity';
import { Notification } from '../entities/notification.entity';
import { recipientsOf } from '../notification-target';
import { cutRanges, WalletAFanOut, type ShardRange } from './wallet-a-fan-out';

/** `nthAfter` over sorted ids, as the keyset query answers it; counts the steps. */
function keyset(ids: string[]) {
  const steps: (string | null)[] = [];
  const nthAfter = (after: string | null, offset: number) => {
    steps.push(after);
    const rest = ids.filter((id) => after === null || id > after);
    return Promise.resolve(rest.slice(offset, offset + 2));
  };
  return { nthAfter, steps };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `r${String(i).padStart(4, '0')}`);

/** Which of `all` each range holds. */
const members = (ranges: ShardRange[], all: string[]) =>
  ranges.map((range) =>
    all.filter(
      (id) =>
        (range.afterId === null || id > range.afterId) &&
        (range.upToId === null || id <= range.upToId),
    ),
  );

describe('cutRanges', () => {
  it('cuts ranges of `size` in id order, the last open-ended', async () => {
    const all = ids(25);
    const ranges = await cutRanges(keyset(all).nthAfter, null, 10);
    expect(ranges).toEqual([
      { afterId: null, upToId: 'r0009' },
      { afterId: 'r0009', upToId: 'r0019' },
      { afterId: 'r0019', upToId: null },
    ]);
    expect(members(ranges, all).map((m) => m.length)).toEqual([10, 10, 5]);
    // Every id in exactly one range, and one registered after the cut (a later id) in the last.
    expect(members(ranges, [...all, 'r9999']).flat()).toEqual([...all, 'r9999']);
  });

  it('never leaves an empty last range: an exact multiple ends with a full open-ended one', async () => {
    const all = ids(20);
    const ranges = await cutRanges(keyset(all).nthAfter, null, 10);
    expect(ranges).toEqual([
      { afterId: null, upToId: 'r0009' },
      { afterId: 'r0009', upToId: null },
    ]);
    expect(members(ranges, all).map((m) => m.length)).toEqual([10, 10]);
  });

  it('gives an audience of at most one shard (or none) one open-ended range, in one step', async () => {
    for (const n of [0, 1, 10]) {
      const { nthAfter, steps } = keyset(ids(n));
      expect(await cutRanges(nthAfter, null, 10)).toEqual([{ afterId: null, upToId: null }]);
      expect(steps).toEqual([null]);
    }
  });

  it('starts after a cursor (a fan-out begun before shards), and takes size 1', async () => {
    const all = ids(4);
    expect(await cutRanges(keyset(all).nthAfter, 'r0001', 10)).toEqual([
      { afterId: 'r0001', upToId: null },
    ]);
    expect(await cutRanges(keyset(all).nthAfter, null, 1)).toEqual([
      { afterId: null, upToId: 'r0000' },
      { afterId: 'r0000', upToId: 'r0001' },
      { afterId: 'r0001', upToId: 'r0002' },
      { afterId: 'r0002', upToId: null },
    ]);
  });
});

/**
 * The cut against the real schema (every migration, SQLite in memory): the shard rows commit
 * with the notification's checkpoint, once.
 */
describe('WalletAFanOut.cut', () => {
  let dataSource: DataSource;
  let fanOut: WalletAFanOut;
  const ACTIVE = In(['Initializing', 'Processing', 'Finalizing']);

  beforeAll(async () => {
    dataSource = new DataSource(
      dataSourceOptions(
        { type: 'sqlite', path: ':memory:', migrateOnStart: false, queryMs: 4000 },
        [Notification, NotificationDelivery, NotificationShard, Registration],
      ),
    );
    await dataSource.initialize();
    await dataSource.runMigrations();
    // The rows below stand alone (no workspace, pass or holder rows to point at).
    await dataSource.query('PRAGMA foreign_keys = OFF');
    fanOut = new WalletAFanOut(dataSource, {} as RegistrationFanOut);
  });
  afterAll(() => dataSource.destroy());

  /**
   * A notification being delivered by worker `w1` (to the holders of its `snapshot`, if given:
   * `holderIds` chosen, or else an audience's), its recipients as the worker gives them, and
   * `devices` registrations of its pass (each of `holderOf(n)`'s copy, or of the shared pass).
   */
  async function scene(
    devices: number,
    { holderIds = null, snapshot = null, holderOf = () => null }: SceneOptions = {},
  ) {
    const now = new Date();
    const passId = newId();
    const registrations = Array.from({ length: devices }, (_, n) => ({
      id: newId(),
      workspaceId: 'w',
      passId,
      holderId: holderOf(n),
      serialNumber: holderOf(n) ?? passId,
      deviceLibraryId: `device-${n}`,
      pushToken: `token-${n}`,
      createdTime: now,
      updatedTime: now,
      removedTime: null,
    }));
    if (devices > 0) await dataSource.getRepository(Registration).insert(registrations);
    const notification = {
      id: newId(),
      workspaceId: 'w',
      passId,
      accountId: 'a',
      notificationName: 'n',
      notificationMessage: 'm',
      holderIds,
      segmentId: null,
      audience: snapshot === null || holderIds !== null ? null : { tag: 'gold' },
      audienceSize: snapshot === null || holderIds !== null ? null : snapshot.length,
      status: 'Processing' as const,
      scheduledTime: null,
      publishedTime: null,
      sentTime: now,
      leaseUntil: new Date(now.getTime() + 60_000),
      leasedBy: 'w1',
      attempts: 1,
      preparedVersion: 2,
      fanoutCursor: null,
      shardCount: null,
      createdTime: now,
      updatedTime: now,
      createdBy: null,
      updatedBy: null,
    };
    await dataSource.getRepository(Notification).insert(notification);
    for (const holderId of snapshot ?? []) {
      await dataSource.query('INSERT INTO audience_member (snapshot_id, holder_id) VALUES (?, ?)', [
        notification.id,
        holderId,
      ]);
    }
    const lease = (workerId: string) =>
      new Lease<Notification>(dataSource, {
        entity: Notification,
        workerId,
        leaseMs: 60_000,
        held: { status: ACTIVE },
      });
    const checkpointOf =
      (workerId: string) => (changes: Partial<Notification>, manager: EntityManagerLike) =>
        lease(workerId).checkpoint(notification.id, changes, manager);
    const shards = () =>
      dataSource
        .getRepository(NotificationShard)
        .find({ where: { notificationId: notification.id }, order: { position: 'ASC' } });
    const shardCount = async () =>
      (await dataSource.getRepository(Notification).findOneByOrFail({ id: notification.id }))
        .shardCount;
    const sorted = registrations.map((r) => r.id).sort();
    const recipients = recipientsOf(notification);
    return { notification, recipients, checkpointOf, shards, shardCount, sorted, registrations };
  }
  interface SceneOptions {
    holderIds?: string[] | null;
    snapshot?: string[] | null;
    holderOf?: (n: number) => string | null;
  }

  async function holder(status: 'Active' | 'Voided'): Promise<string> {
    const id = newId();
    await dataSource.query(
      'INSERT INTO holder (id, created_time, updated_time, workspace_id, pass_id, external_id, ' +
        "serial_number, holder_token, status, field_values) VALUES (?, ?, ?, 'w', 'p', ?, ?, ?, ?, '{}')",
      [id, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', id, id, id, status],
    );
    return id;
  }
  type EntityManagerLike = Parameters<Lease<Notification>['checkpoint']>[2];

  it('writes the shards and shardCount with the checkpoint: boundaries in id order, the last open-ended', async () => {
    const { notification, recipients, checkpointOf, shards, shardCount, sorted } = await scene(25);
    expect(await fanOut.cut(notification, recipients, 10, checkpointOf('w1'))).toBe(3);
    expect(await shardCount()).toBe(3);
    const rows = await shards();
    expect(
      rows.map(({ position, afterId, upToId, state, attempts, leasedBy }) => ({
        position,
        afterId,
        upToId,
        state,
        attempts,
        leasedBy,
      })),
    ).toEqual([
      { position: 0, afterId: null, upToId: sorted[9], state: 'open', attempts: 0, leasedBy: null },
      {
        position: 1,
        afterId: sorted[9],
        upToId: sorted[19],
        state: 'open',
        attempts: 0,
        leasedBy: null,
      },
      {
        position: 2,
        afterId: sorted[19],
        upToId: null,
        state: 'open',
        attempts: 0,
        leasedBy: null,
      },
    ]);
    expect(rows.every((row) => row.workspaceId === 'w')).toBe(true);
  });

  it('writes one shard for a small audience, and one for none', async () => {
    for (const devices of [0, 7]) {
      const { notification, recipients, checkpointOf, shards } = await scene(devices);
      expect(await fanOut.cut(notification, recipients, 10, checkpointOf('w1'))).toBe(1);
      expect((await shards()).map((s) => [s.afterId, s.upToId])).toEqual([[null, null]]);
    }
  });

  it("cuts only the chosen holders' devices, of those still Active (holderIds)", async () => {
    const [chosen, voided, other] = [
      await holder('Active'),
      await holder('Voided'),
      await holder('Active'),
    ];
    // Devices 0, 4, 8, … hold the shared pass; the rest cycle through the three holders.
    const holders = [chosen, voided, other];
    // The worker writes the chosen holders of the pass down as the notification's snapshot.
    const { notification, recipients, checkpointOf, shards, registrations } = await scene(40, {
      holderIds: [chosen, voided],
      snapshot: [chosen, voided],
      holderOf: (n) => (n % 4 === 0 ? null : holders[(n % 4) - 1]),
    });
    expect(recipients).toEqual({ kind: 'snapshot', notificationId: notification.id, size: 2 });
    const reached = registrations
      .filter((r) => r.holderId === chosen)
      .map((r) => r.id)
      .sort();
    expect(reached).toHaveLength(10);
    expect(await fanOut.cut(notification, recipients, 4, checkpointOf('w1'))).toBe(3);
    const ranges = await shards();
    // The boundaries step over the reached devices only: 4, 4 and the last 2.
    expect(ranges.map((s) => s.upToId)).toEqual([reached[3], reached[7], null]);
    expect(members(ranges, reached).map((m) => m.length)).toEqual([4, 4, 2]);
  });

  it("cuts only the devices of the audience's holders, of those still Active (a snapshot)", async () => {
    const [matched, voided, other] = [
      await holder('Active'),
      await holder('Voided'),
      await holder('Active'),
    ];
    const holders = [matched, voided, other];
    const { notification, recipients, checkpointOf, shards, registrations } = await scene(40, {
      snapshot: [matched, voided],
      holderOf: (n) => (n % 4 === 0 ? null : holders[(n % 4) - 1]),
    });
    const reached = registrations
      .filter((r) => r.holderId === matched)
      .map((r) => r.id)
      .sort();
    expect(reached).toHaveLength(10);
    expect(await fanOut.cut(notification, recipients, 4, checkpointOf('w1'))).toBe(3);
    const ranges = await shards();
    expect(ranges.map((s) => s.upToId)).toEqual([reached[3], reached[7], null]);
    expect(members(ranges, reached).map((m) => m.length)).toEqual([4, 4, 2]);
  });

  it('commits nothing for a worker that lost the lease', async () => {
    const { notification, recipients, checkpointOf, shards, shardCount } = await scene(25);
    expect(await fanOut.cut(notification, recipients, 10, checkpointOf('w0'))).toBeNull();
    expect(await shards()).toEqual([]);
    expect(await shardCount()).toBeNull();
  });

  it('commits nothing when the worker dies mid-cut; the next cut makes exactly one set', async () => {
    const { notification, recipients, checkpointOf, shards, shardCount } = await scene(25);
    // The checkpoint is written, then the process "dies" before the shards are.
    const dying = async (changes: Partial<Notification>, manager: EntityManagerLike) => {
      await checkpointOf('w1')(changes, manager);
      throw new Error('killed');
    };
    await expect(fanOut.cut(notification, recipients, 10, dying)).rejects.toThrow('killed');
    expect(await shards()).toEqual([]);
    expect(await shardCount()).toBeNull();

    expect(await fanOut.cut(notification, recipients, 10, checkpointOf('w1'))).toBe(3);
    expect((await shards()).map((s) => s.position)).toEqual([0, 1, 2]);
  });

  it('refuses a second cut of a notification already cut: no duplicate or overlapping shards', async () => {
    const { notification, recipients, checkpointOf, shards, shardCount } = await scene(25);
    expect(await fanOut.cut(notification, recipients, 10, checkpointOf('w1'))).toBe(3);
    const first = await shards();
    // A worker that read the notification before the cut committed (shardCount still null)
    // and cuts again, with other boundaries: (notification_id, position) is unique.
    await expect(fanOut.cut(notification, recipients, 5, checkpointOf('w1'))).rejects.toThrow();
    expect(await shards()).toEqual(first);
    expect(await shardCount()).toBe(3);
  });
});
