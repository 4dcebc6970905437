import { newId } from '@app/core';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { WalletAFanOut } from '../libs/notifications/src/channels/wallet-a-fan-out';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';

/**
 * How MariaDB reads a whole pass's registrations for a notification's fan-out. Left to its own
 * plan it took a `ref` on (pass_id, removed_time) and filtered `r.id > ?` row by row, so every
 * keyset step of the shard cut began at the pass's first registration: at a million devices,
 * 16.8 s before the first push instead of 0.35 s (BENCHMARKS.md). The plan is checked with
 * EXPLAIN on the very statements the cut sends, on a pass with enough registrations for the
 * optimizer to prefer that `ref`. A notification to an audience reads the same range, each
 * registration looked up in the snapshot (`audience_member`) and its holder by primary key.
 * SQLite's planner reads the range by itself: MariaDB only.
 */
const REGISTRATIONS = 30_000;
const SHARD = 5_000;
const INSERT_ROWS = 1_000;

/** What `run` returns, and the statements it sent through `dataSource` on the way. */
async function statementsOf<T>(
  dataSource: DataSource,
  run: () => Promise<T>,
): Promise<{ result: T; sent: { sql: string; parameters: unknown[] }[] }> {
  const sent: { sql: string; parameters: unknown[] }[] = [];
  const query = dataSource.query.bind(dataSource);
  const spy = jest
    .spyOn(dataSource, 'query')
    .mockImplementation((sql: string, parameters?: unknown[] | ObjectLiteral) => {
      sent.push({ sql, parameters: Array.isArray(parameters) ? parameters : [] });
      return query(sql, parameters);
    });
  try {
    return { result: await run(), sent };
  } finally {
    spy.mockRestore();
  }
}

interface PlanRow {
  type: string;
  key: string | null;
}

(TEST_DB === 'mysql' ? describe : describe.skip)(
  `The fan-out's reads of a whole pass (${TEST_DB})`,
  () => {
    let testApp: TestApp;
    let dataSource: DataSource;
    const passId = newId();

    beforeAll(async () => {
      testApp = await startTestApp({ WORKER_ENABLED: 'false' });
      dataSource = testApp.app.get(DataSource);
      // Bare rows: the plan depends on the index and its statistics, not on the pass itself.
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.query('SET FOREIGN_KEY_CHECKS = 0');
        const now = new Date();
        for (let from = 0; from < REGISTRATIONS; from += INSERT_ROWS) {
          const values: unknown[] = [];
          const rows: string[] = [];
          for (let n = from; n < from + INSERT_ROWS; n++) {
            rows.push('(?, ?, ?, ?, ?, ?, ?, ?, ?)');
            values.push(newId(), 'w', passId, passId, `device-${n}`, `token-${n}`, now, now, null);
          }
          await runner.query(
            'INSERT INTO wallet_a_registration (id, workspace_id, pass_id, serial_number, ' +
              'device_library_id, push_token, created_time, updated_time, removed_time) VALUES ' +
              rows.join(', '),
            values,
          );
        }
        await runner.query('ANALYZE TABLE wallet_a_registration');
      } finally {
        await runner.query('SET FOREIGN_KEY_CHECKS = 1');
        await runner.release();
      }
    }, 120_000);
    afterAll(() => testApp?.close());

    it('cuts shards with range reads along ix_registration_pass, never from the first registration', async () => {
      const fanOut = testApp.app.get(WalletAFanOut);
      const { result: ranges, sent } = await statementsOf(dataSource, () =>
        fanOut.ranges({ id: newId(), passId, attempts: 1 }, { kind: 'pass' }, null, SHARD),
      );
      expect(ranges).toHaveLength(REGISTRATIONS / SHARD);

      const steps = sent.filter(({ sql }) => sql.includes('wallet_a_registration'));
      expect(steps).toHaveLength(REGISTRATIONS / SHARD);
      for (const [index, { sql, parameters }] of steps.entries()) {
        const [plan] = await dataSource.query<PlanRow[]>(`EXPLAIN ${sql}`, parameters);
        // The first step starts at the pass's first registration anyway; every later one must
        // start at its cursor, which only a range on the index does.
        expect({ step: index, key: plan.key, type: index === 0 ? 'any' : plan.type }).toEqual({
          step: index,
          key: 'ix_registration_pass',
          type: index === 0 ? 'any' : 'range',
        });
      }
    });

    // A pass whose every registration holds a holder's copy, written by the test below.
    const audiencePassId = newId();
    const holderIds: string[] = [];

    it("reads an audience's devices along ix_registration_pass too, testing each against the snapshot", async () => {
      // The audience matched every third holder.
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.query('SET FOREIGN_KEY_CHECKS = 0');
        const now = new Date();
        for (let from = 0; from < REGISTRATIONS; from += INSERT_ROWS) {
          const holders: unknown[] = [];
          const registrations: unknown[] = [];
          const members: unknown[] = [];
          for (let n = from; n < from + INSERT_ROWS; n++) {
            const holderId = newId();
            holderIds.push(holderId);
            holders.push(holderId, now, now, 'w', audiencePassId, `member-${n}`);
            holders.push(`serial-${holderId}`, `token-${holderId}`, 'Active', '{}');
            registrations.push(newId(), 'w', audiencePassId, holderId, `serial-${holderId}`);
            registrations.push(`device-${n}`, `token-${n}`, now, now, null);
            if (n % 3 === 0) members.push(holderId);
          }
          await runner.query(
            'INSERT INTO holder (id, created_time, updated_time, workspace_id, pass_id, ' +
              'external_id, serial_number, holder_token, status, field_values) VALUES ' +
              Array(INSERT_ROWS).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', '),
            holders,
          );
          await runner.query(
            'INSERT INTO wallet_a_registration (id, workspace_id, pass_id, holder_id, ' +
              'serial_number, device_library_id, push_token, created_time, updated_time, ' +
              'removed_time) VALUES ' +
              Array(INSERT_ROWS).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', '),
            registrations,
          );
          members.sort();
          const snapshot = members.flatMap((holderId) => [audiencePassId, holderId]);
          await runner.query(
            'INSERT INTO audience_member (snapshot_id, holder_id) VALUES ' +
              members.map(() => '(?, ?)').join(', '),
            snapshot,
          );
        }
        await runner.query('ANALYZE TABLE wallet_a_registration, holder, audience_member');
      } finally {
        await runner.query('SET FOREIGN_KEY_CHECKS = 1');
        await runner.release();
      }

      const fanOut = testApp.app.get(WalletAFanOut);
      // The snapshot's id is the notification's: here the pass id stands in for it.
      const { result: ranges, sent } = await statementsOf(dataSource, () =>
        fanOut.ranges(
          { id: audiencePassId, passId: audiencePassId, attempts: 1 },
          { kind: 'snapshot', notificationId: audiencePassId, size: REGISTRATIONS / 3 },
          null,
          SHARD / 5,
        ),
      );
      expect(ranges).toHaveLength(REGISTRATIONS / 3 / (SHARD / 5));

      const steps = sent.filter(({ sql }) => sql.includes('wallet_a_registration'));
      expect(steps).toHaveLength(ranges.length);
      for (const [index, { sql, parameters }] of steps.entries()) {
        const plan = await dataSource.query<(PlanRow & { table: string })[]>(
          `EXPLAIN ${sql}`,
          parameters,
        );
        // Driven from the registrations along their index, from the cursor on; the snapshot
        // and the holder are lookups of one row each per registration.
        expect({
          step: index,
          table: plan[0].table,
          key: plan[0].key,
          type: index === 0 ? 'any' : plan[0].type,
        }).toEqual({
          step: index,
          table: 'r',
          key: 'ix_registration_pass',
          type: index === 0 ? 'any' : 'range',
        });
        for (const row of plan.slice(1)) expect(['eq_ref', 'ref']).toContain(row.type);
      }
    }, 120_000);

    it("reads a few chosen holders' devices from the holders, not from every registration of the pass", async () => {
      const chosen = holderIds.slice(0, 3);
      const snapshotId = newId();
      await dataSource.query(
        'INSERT INTO audience_member (snapshot_id, holder_id) VALUES (?, ?), (?, ?), (?, ?)',
        chosen.flatMap((holderId) => [snapshotId, holderId]),
      );
      const fanOut = testApp.app.get(WalletAFanOut);
      const { result: ranges, sent } = await statementsOf(dataSource, () =>
        fanOut.ranges(
          { id: snapshotId, passId: audiencePassId, attempts: 1 },
          { kind: 'snapshot', notificationId: snapshotId, size: chosen.length },
          null,
          SHARD,
        ),
      );
      expect(ranges).toEqual([{ afterId: null, upToId: null }]);

      const [step] = sent.filter(({ sql }) => sql.includes('wallet_a_registration'));
      const plan = await dataSource.query<(PlanRow & { table: string })[]>(
        `EXPLAIN ${step.sql}`,
        step.parameters,
      );
      expect(plan.map((row) => row.key)).not.toContain('ix_registration_pass');
      expect(plan.find((row) => row.table === 'r')?.key).toBe('ix_registration_holder');
    });
  },
);
