import { InvalidInputError } from '../errors/domain-errors';
import { newId } from '../ids/ids';
import type { DataSource } from 'typeorm';
import {
  decodeCursor,
  decodeTimeCursor,
  encodeCursor,
  paginateSql,
  type SqlListQuery,
} from './page';

describe('cursors', () => {
  it('round-trips an id and is opaque (no raw id in it)', () => {
    const id = newId();
    const cursor = encodeCursor(id);
    expect(cursor).not.toContain(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(id);
  });

  it.each([
    ['garbage', '%%%'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['wrong shape', Buffer.from('{"offset":20}').toString('base64url')],
    ['id with forbidden characters', Buffer.from('{"after":"a\' OR 1=1"}').toString('base64url')],
    ['null', Buffer.from('null').toString('base64url')],
  ])('rejects %s', (_label, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(InvalidInputError);
  });

  it('round-trips an id and a time, and refuses a time cursor without a proper time', () => {
    const id = newId();
    const at = new Date('2026-03-04T05:06:07.089Z');
    expect(decodeTimeCursor(encodeCursor(id, at))).toEqual({ after: id, at });
    expect(decodeCursor(encodeCursor(id, at))).toBe(id);
    for (const position of [{ after: id }, { after: id, at: 'yesterday' }, { after: id, at: 5 }]) {
      const cursor = Buffer.from(JSON.stringify(position)).toString('base64url');
      expect(() => decodeTimeCursor(cursor)).toThrow(InvalidInputError);
    }
  });
});

describe('paginateSql', () => {
  const ids = Array.from({ length: 3 }, () => newId()).reverse();

  function recordingDataSource(
    type: 'mysql' | 'better-sqlite3',
    rows: Record<string, unknown>[] = ids.map((id) => ({ t_id: id })),
  ) {
    const calls: { sql: string; params: unknown[] }[] = [];
    // No pool behind the driver: rawQuery sends the SQL through `query`, recorded here.
    const dataSource = {
      options: { type },
      driver: { options: { type } },
      query: (sql: string, params: unknown[]) => {
        calls.push({ sql, params });
        return Promise.resolve(rows);
      },
    } as unknown as DataSource;
    return { dataSource, calls };
  }

  const list: SqlListQuery = {
    select: 't.id AS t_id',
    table: 'thing',
    alias: 't',
    pageIndex: 'ix_thing_workspace',
    where: [],
    params: [],
    idColumn: 't.id',
    idKey: 't_id',
  };

  it('reads along the page index on MySQL, keyset after the cursor, one row more than the page', async () => {
    const { dataSource, calls } = recordingDataSource('mysql');
    const page = await paginateSql(dataSource, 'w1', list, {
      limit: 2,
      cursor: encodeCursor(ids[0]),
    });
    expect(calls[0].sql).toBe(
      'SELECT t.id AS t_id FROM thing t FORCE INDEX (ix_thing_workspace) ' +
        'WHERE t.workspace_id = ? AND t.id < ? ORDER BY t.id DESC LIMIT 3',
    );
    expect(calls[0].params).toEqual(['w1', ids[0]]);
    expect(page).toEqual({
      items: [{ t_id: ids[0] }, { t_id: ids[1] }],
      hasMore: true,
      cursor: encodeCursor(ids[1]),
    });
  });

  it('orders by a time, then the id, and cuts the page after both', async () => {
    // SQLite hands back the UTC text TypeORM stored; the cursor carries it as an instant.
    const seen = '2026-03-04 05:06:07.089';
    const at = new Date('2026-03-04T05:06:07.089Z');
    const { dataSource, calls } = recordingDataSource(
      'better-sqlite3',
      ids.map((id) => ({ t_id: id, t_seen: seen })),
    );
    const timed: SqlListQuery = {
      ...list,
      select: 't.id AS t_id, t.seen_time AS t_seen',
      time: { column: 't.seen_time', key: 't_seen' },
    };
    const page = await paginateSql(dataSource, 'w1', timed, {
      limit: 2,
      cursor: encodeCursor(ids[0], at),
    });
    expect(calls[0].sql).toBe(
      'SELECT t.id AS t_id, t.seen_time AS t_seen FROM thing t WHERE t.workspace_id = ? AND ' +
        '(t.seen_time < ? OR (t.seen_time = ? AND t.id < ?)) ' +
        'ORDER BY t.seen_time DESC, t.id DESC LIMIT 3',
    );
    expect(calls[0].params).toEqual(['w1', seen, seen, ids[0]]);
    expect(page.cursor).toBe(encodeCursor(ids[1], at));
    await expect(
      paginateSql(dataSource, 'w1', timed, { cursor: encodeCursor(ids[0]) }),
    ).rejects.toThrow(InvalidInputError);
  });

  it('leaves the plan to SQLite, which reads the index range by itself', async () => {
    const { dataSource, calls } = recordingDataSource('better-sqlite3');
    await paginateSql(dataSource, 'w1', list, {});
    expect(calls[0].sql).not.toContain('FORCE INDEX');
    expect(calls[0].sql).toContain('LIMIT 21');
  });

  it("adds the workspace predicate itself, before the caller's conditions", async () => {
    const { dataSource, calls } = recordingDataSource('mysql');
    await paginateSql(
      dataSource,
      'w2',
      {
        ...list,
        joins: 'LEFT JOIN owner o ON o.id = t.owner_id',
        where: ['t.deleted_time IS NULL', 't.status IN (?, ?)'],
        params: ['Draft', 'Published'],
      },
      { limit: 5 },
    );
    expect(calls[0].sql).toBe(
      'SELECT t.id AS t_id FROM thing t FORCE INDEX (ix_thing_workspace) ' +
        'LEFT JOIN owner o ON o.id = t.owner_id ' +
        'WHERE t.workspace_id = ? AND t.deleted_time IS NULL AND t.status IN (?, ?) ' +
        'ORDER BY t.id DESC LIMIT 6',
    );
    expect(calls[0].params).toEqual(['w2', 'Draft', 'Published']);
  });
});
