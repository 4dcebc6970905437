import { TableIndex, TableUnique, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { dialectOfType } from './dialect';

/**
 * Column builders for migrations. Migrations use TypeORM's QueryRunner schema API so the same
 * file runs on SQLite and MySQL/MariaDB; these keep the shared shapes identical everywhere.
 */
export const idColumn = (): TableColumnOptions => ({
  name: 'id',
  type: 'varchar',
  length: '36',
  isPrimary: true,
});

export const refColumn = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: '36',
  isNullable: nullable,
});

export const stringColumn = (
  name: string,
  length: number,
  nullable = false,
): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});

export const timeColumn = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});

export const booleanColumn = (name: string, fallback: boolean): TableColumnOptions => ({
  name,
  type: 'boolean',
  isNullable: false,
  default: fallback ? 1 : 0,
});

/** id, created/updated time and author: the spec's common entity fields. */
export const auditedColumns = (): TableColumnOptions[] => [
  idColumn(),
  timeColumn('created_time'),
  timeColumn('updated_time'),
  refColumn('created_by', true),
  refColumn('updated_by', true),
];

/** JSON documents stored as text (TypeORM `simple-json`), in the dialect's large text type. */
export const jsonColumn = (
  name: string,
  dialect: string | undefined,
  nullable = false,
): TableColumnOptions => ({
  name,
  type: dialectOfType(dialect).jsonTextType,
  isNullable: nullable,
});

export const counterColumn = (name: string): TableColumnOptions => ({
  name,
  type: 'int',
  isNullable: false,
  default: 0,
});

/**
 * A table's unique key replaced by another. MySQL keeps the `uniques` of a created table as
 * unique indexes (TypeORM refuses its constraint API there), SQLite as table constraints.
 */
export async function replaceUniqueKey(
  queryRunner: QueryRunner,
  table: string,
  from: string,
  to: string,
  columnNames: string[],
): Promise<void> {
  if (dialectOfType(queryRunner.connection.options.type).isMysql) {
    await queryRunner.dropIndex(table, from);
    await queryRunner.createIndex(table, new TableIndex({ name: to, columnNames, isUnique: true }));
  } else {
    await queryRunner.dropUniqueConstraint(table, from);
    await queryRunner.createUniqueConstraint(table, new TableUnique({ name: to, columnNames }));
  }
}
