import { dialectOfType, sqlDialect } from './dialect';

describe('sqlDialect', () => {
  const mysql = sqlDialect({ options: { type: 'mysql' } });
  const sqlite = sqlDialect({ options: { type: 'better-sqlite3' } });

  it('treats MariaDB as MySQL and anything else as SQLite', () => {
    expect(dialectOfType('mariadb')).toBe(mysql);
    expect(dialectOfType(undefined)).toBe(sqlite);
    expect([mysql.isMysql, sqlite.isMysql]).toEqual([true, false]);
  });

  it('hints an index on MySQL only', () => {
    expect(mysql.forceIndex('ix_pass_workspace')).toBe(' FORCE INDEX (ix_pass_workspace)');
    expect(sqlite.forceIndex('ix_pass_workspace')).toBe('');
  });

  it('asks for READ COMMITTED and row locks on MySQL only', () => {
    expect([mysql.readCommitted, mysql.rowLocks]).toEqual(['READ COMMITTED', true]);
    expect([sqlite.readCommitted, sqlite.rowLocks]).toEqual([undefined, false]);
  });

  it("reads SQLite's zone-less UTC text, ISO text and Dates as the same instant", () => {
    const instant = new Date('2025-03-04T05:06:07.089Z');
    for (const dialect of [mysql, sqlite]) {
      expect(dialect.readDate('2025-03-04 05:06:07.089')).toEqual(instant);
      expect(dialect.readDate('2025-03-04T05:06:07.089Z')).toEqual(instant);
      expect(dialect.readDate(instant)).toBe(instant);
    }
  });

  it('writes a date parameter as each driver compares it with a stored datetime', () => {
    const instant = new Date('2025-03-04T05:06:07.089Z');
    expect(mysql.writeDate(instant)).toBe(instant);
    expect(sqlite.writeDate(instant)).toBe('2025-03-04 05:06:07.089');
    expect(sqlite.readDate(sqlite.writeDate(instant))).toEqual(instant);
  });

  it('adds to the counters of an existing row in one statement, each dialect its way', () => {
    const row = { pass_id: 'p', day: '2025-03-04', clicks: 2, sent: 0 };
    expect(sqlite.insertAdding('stats', ['pass_id', 'day'], row, ['clicks', 'sent'])).toEqual({
      sql:
        'INSERT INTO stats (pass_id, day, clicks, sent) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (pass_id, day) DO UPDATE SET clicks = clicks + excluded.clicks, sent = sent + excluded.sent',
      parameters: ['p', '2025-03-04', 2, 0],
    });
    expect(mysql.insertAdding('stats', ['pass_id', 'day'], row, ['clicks'])).toEqual({
      sql:
        'INSERT INTO stats (pass_id, day, clicks, sent) VALUES (?, ?, ?, ?) ' +
        'ON DUPLICATE KEY UPDATE clicks = clicks + VALUES(clicks)',
      parameters: ['p', '2025-03-04', 2, 0],
    });
  });

  it('adds several rows of the same columns in one statement', () => {
    const rows = [
      { pass_id: 'p', day: '2025-03-04', clicks: 2 },
      { pass_id: 'q', day: '2025-03-04', clicks: 5 },
    ];
    expect(mysql.insertAdding('stats', ['pass_id', 'day'], rows, ['clicks'])).toEqual({
      sql:
        'INSERT INTO stats (pass_id, day, clicks) VALUES (?, ?, ?), (?, ?, ?) ' +
        'ON DUPLICATE KEY UPDATE clicks = clicks + VALUES(clicks)',
      parameters: ['p', '2025-03-04', 2, 'q', '2025-03-04', 5],
    });
  });
});
