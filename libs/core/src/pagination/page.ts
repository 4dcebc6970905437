import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { DataSource, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { sqlDialect } from '../database/dialect';
import { rawQuery } from '../database/raw-query';
import { InvalidInputError } from '../errors/domain-errors';
import { ID_PATTERN } from '../ids/ids';

export const MAX_PAGE_SIZE = 20;

/** `cursor` and `limit`, shared by every list endpoint. */
export class PageQuery {
  @ApiPropertyOptional({ description: 'The `cursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;
}

/** The spec's paged list. */
export interface Page<T> {
  items: T[];
  cursor: string | null;
  hasMore: boolean;
}

export function mapPage<T, R>(page: Page<T>, map: (item: T) => R): Page<R> {
  return { ...page, items: page.items.map(map) };
}

/**
 * Cursors are opaque to clients: base64url of the last id they saw, never an offset; with the
 * last row's time too for a list ordered by a time column first ({@link SqlListQuery.time}).
 */
export function encodeCursor(lastId: string, lastTime?: Date): string {
  const position = lastTime === undefined ? { after: lastId } : { after: lastId, at: lastTime };
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

const invalidCursor = () =>
  new InvalidInputError({ cursor: 'is not a cursor returned by this list' });

/** A cursor's JSON, or a 400 for anything this service did not hand out. */
function readCursor(cursor: string): { after: string; at?: unknown } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const position = decoded as { after?: unknown; at?: unknown } | null;
  const after = position?.after;
  if (typeof after !== 'string' || !ID_PATTERN.test(after) || after.length > 64) {
    throw invalidCursor();
  }
  return { after, at: position?.at };
}

export function decodeCursor(cursor: string): string {
  return readCursor(cursor).after;
}

/** The id and time of a cursor of a list ordered by time, then id. */
export function decodeTimeCursor(cursor: string): { after: string; at: Date } {
  const { after, at } = readCursor(cursor);
  const time = typeof at === 'string' && ISO_TIME.test(at) ? new Date(at) : undefined;
  if (time === undefined || Number.isNaN(time.getTime())) throw invalidCursor();
  return { after, at: time };
}

/** `Date.prototype.toJSON`'s form, the only one {@link encodeCursor} writes. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Keyset paging, newest first: ids are time-ordered (UUIDv7), so `id < :after ORDER BY id DESC`
 * returns each record exactly once even while new ones are created between pages, and page
 * 5,000 costs what page 1 does. The caller's query builder already carries the workspace.
 */
export async function paginate<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  page: PageQuery,
  idColumn = `${query.alias}.id`,
): Promise<Page<E>> {
  const limit = page.limit ?? MAX_PAGE_SIZE;
  if (page.cursor !== undefined) {
    query.andWhere(`${idColumn} < :pageAfter`, { pageAfter: decodeCursor(page.cursor) });
  }
  const rows = await query
    .orderBy(idColumn, 'DESC')
    .take(limit + 1)
    .getMany();
  return pageOf(rows, limit, (row) => idCursor((row as { id?: unknown }).id));
}

/** Rows fetched with `LIMIT limit + 1` as a page: the extra row only says there is more. */
function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string | null): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    items,
    hasMore,
    cursor: hasMore && items.length > 0 ? cursorOf(items[items.length - 1]) : null,
  };
}

/** The cursor after a row whose id is `id`, or none if that is not an id. */
const idCursor = (id: unknown): string | null => (typeof id === 'string' ? encodeCursor(id) : null);

/** A list query of one workspace's rows in plain SQL, for {@link paginateSql}. */
export interface SqlListQuery {
  /** Column list, e.g. an {@link EntityRows.select} plus joined columns. */
  select: string;
  /** The listed table, e.g. `pass`; it has a `workspace_id` column. */
  table: string;
  /** The table's alias, e.g. `p`. */
  alias: string;
  /**
   * The (workspace_id, id) index the pages are read along. MariaDB/MySQL otherwise pick a
   * `ref` on the workspace alone for middle pages and read every newer row of the workspace
   * before the cursor (50,022 rows for page 2,500 of 100,000); forced, it is a range of 21.
   */
  pageIndex?: string;
  /** Joins after the table. */
  joins?: string;
  /**
   * Conditions besides the workspace, joined with AND; `?` placeholders filled from `params`
   * in order.
   */
  where: string[];
  params: unknown[];
  /** The time-ordered id column the pages are cut on, e.g. `p.id`. */
  idColumn: string;
  /** The key that column comes back under in a raw row. */
  idKey: string;
  /**
   * For a list ordered by a time that moves (most recently seen first): the time column the
   * pages are cut on before the id, and the key it comes back under. Unset: the id alone.
   */
  time?: { column: string; key: string };
}

/**
 * {@link paginate} for hand-written SQL: the same cursor, order and page size. The workspace
 * predicate is added here, first, from a required argument, so that no list can forget it;
 * with the id after it, `(workspace_id, id)` is the index the pages are read along.
 *
 * With `time`, newest first by that time, then by id: the cursor carries both, so a page
 * starts after the last row seen even among rows of the same millisecond. A row whose time
 * moves on while a client pages goes to the front of the list: the later pages do not show it.
 */
export async function paginateSql<Row extends Record<string, unknown>>(
  dataSource: DataSource,
  workspaceId: string,
  query: SqlListQuery,
  page: PageQuery,
): Promise<Page<Row>> {
  const limit = page.limit ?? MAX_PAGE_SIZE;
  const dialect = sqlDialect(dataSource);
  const { time, idColumn } = query;
  const where = [`${query.alias}.workspace_id = ?`, ...query.where];
  const params = [workspaceId, ...query.params];
  if (page.cursor !== undefined && time === undefined) {
    where.push(`${idColumn} < ?`);
    params.push(decodeCursor(page.cursor));
  } else if (page.cursor !== undefined && time !== undefined) {
    const { after, at } = decodeTimeCursor(page.cursor);
    where.push(`(${time.column} < ? OR (${time.column} = ? AND ${idColumn} < ?))`);
    params.push(dialect.writeDate(at), dialect.writeDate(at), after);
  }
  const hint = query.pageIndex === undefined ? '' : dialect.forceIndex(query.pageIndex);
  const table = `${query.table} ${query.alias}${hint}`;
  const from = query.joins === undefined ? table : `${table} ${query.joins}`;
  const order = time === undefined ? `${idColumn} DESC` : `${time.column} DESC, ${idColumn} DESC`;
  const rows = await rawQuery<Row[]>(
    dataSource,
    `SELECT ${query.select} FROM ${from} WHERE ${where.join(' AND ')} ` +
      `ORDER BY ${order} LIMIT ${limit + 1}`,
    params,
  );
  return pageOf(rows, limit, (row) => {
    const id = row[query.idKey];
    if (time === undefined) return idCursor(id);
    const at = row[time.key];
    return typeof id === 'string' && (typeof at === 'string' || at instanceof Date)
      ? encodeCursor(id, dialect.readDate(at))
      : null;
  });
}
