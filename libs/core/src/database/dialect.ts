/**
 * Everything that differs between the two databases the service runs on: MySQL/MariaDB (a
 * pool of real connections) and SQLite (one connection, one transaction or statement at a
 * time, see sqlite-gate.ts). Services ask the dialect instead of checking the driver
 * themselves, so a difference is written down once, with its reason.
 */
export interface SqlDialect {
  /** MySQL or MariaDB; otherwise SQLite. */
  readonly isMysql: boolean;
  /**
   * The index hint to put after a table reference, with its leading space: MySQL/MariaDB
   * sometimes plan a `ref` on a prefix of the index and read far more rows than a keyset page
   * needs; SQLite's planner reads the range by itself and knows no such hint (empty string).
   */
  forceIndex(index: string): string;
  /**
   * The isolation level for a transaction that must see what writers committed before it took
   * its lock: READ COMMITTED on MySQL/MariaDB, whose REPEATABLE READ would keep reading the
   * snapshot of the transaction's first read. Undefined on SQLite, whose transactions run one
   * at a time and are serialisable anyway: start it without a level.
   */
  readonly readCommitted: 'READ COMMITTED' | undefined;
  /**
   * Whether `SELECT ... FOR UPDATE` exists. SQLite has no row locks; its transactions already
   * run one at a time.
   */
  readonly rowLocks: boolean;
  /** Column type of JSON documents kept as text: MySQL's TEXT would stop at 64 KiB. */
  readonly jsonTextType: 'mediumtext' | 'text';
  /**
   * A date from a raw result (`query`, `getRawOne`), which TypeORM does not convert: mysql2
   * hands over a Date, SQLite the UTC text TypeORM stored (`YYYY-MM-DD HH:MM:SS.SSS`, no zone).
   */
  readDate(value: Date | string): Date;
  /**
   * A date as a raw query parameter, compared with a `datetime` column as TypeORM stored it:
   * mysql2 writes a Date itself (in the connection's zone, UTC); better-sqlite3 binds no Dates,
   * and TypeORM stores UTC text `YYYY-MM-DD HH:MM:SS.SSS`, which compares as text.
   */
  writeDate(value: Date): Date | string;
  /**
   * One INSERT of `row` that, when a row with the same `key` exists already, adds the values
   * of the `added` columns to it instead: a single statement, so concurrent increments all
   * count without a read first. SQLite names the conflicting key (`ON CONFLICT (...) DO
   * UPDATE`); MySQL/MariaDB find it themselves (`ON DUPLICATE KEY UPDATE`, `VALUES(x)` being
   * the value the INSERT carried). Table and column names are the caller's constants.
   * `row` may be several rows of the same columns and different keys: one statement for all.
   */
  insertAdding(
    table: string,
    key: readonly string[],
    row: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[],
    added: readonly string[],
  ): { sql: string; parameters: unknown[] };
}

function readDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  return new Date(value.includes('T') ? value : `${value.replace(' ', 'T')}Z`);
}

function writeSqliteDate(value: Date): string {
  return value.toISOString().replace('T', ' ').slice(0, 23);
}

/** The INSERT part both dialects share, and its parameters in column order, row by row. */
function insertRow(
  table: string,
  row: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[],
): { sql: string; parameters: unknown[] } {
  const rows: readonly Readonly<Record<string, unknown>>[] = Array.isArray(row) ? row : [row];
  const columns = Object.keys(rows[0]);
  const values = `(${columns.map(() => '?').join(', ')})`;
  return {
    sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.map(() => values).join(', ')}`,
    parameters: rows.flatMap((each) => columns.map((column) => each[column])),
  };
}

const MYSQL: SqlDialect = {
  isMysql: true,
  forceIndex: (index) => ` FORCE INDEX (${index})`,
  readCommitted: 'READ COMMITTED',
  rowLocks: true,
  jsonTextType: 'mediumtext',
  readDate,
  writeDate: (value) => value,
  insertAdding: (table, _key, row, added) => {
    const insert = insertRow(table, row);
    const sets = added.map((column) => `${column} = ${column} + VALUES(${column})`);
    return { ...insert, sql: `${insert.sql} ON DUPLICATE KEY UPDATE ${sets.join(', ')}` };
  },
};

const SQLITE: SqlDialect = {
  isMysql: false,
  forceIndex: () => '',
  readCommitted: undefined,
  rowLocks: false,
  jsonTextType: 'text',
  readDate,
  writeDate: writeSqliteDate,
  insertAdding: (table, key, row, added) => {
    const insert = insertRow(table, row);
    const sets = added.map((column) => `${column} = ${column} + excluded.${column}`);
    return {
      ...insert,
      sql: `${insert.sql} ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${sets.join(', ')}`,
    };
  },
};

/** The dialect of a TypeORM driver type (`DataSourceOptions['type']`), e.g. in a migration. */
export function dialectOfType(type: string | undefined): SqlDialect {
  return type === 'mysql' || type === 'mariadb' ? MYSQL : SQLITE;
}

/** The dialect of a data source (or `manager.connection`). */
export function sqlDialect(dataSource: {
  readonly options: { readonly type: string };
}): SqlDialect {
  return dialectOfType(dataSource.options.type);
}
