import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * An entity's columns for hand-written SQL on hot read paths, and the reader that turns a raw
 * row back into the entity as TypeORM would (the driver converts each value: SQLite's date
 * text, `simple-json`). The query builder rebuilds its SQL text and walks its alias and
 * relation machinery on every query; on the busiest lists that cost more than the query itself
 * (BENCHMARKS.md). Everywhere else the query builder stays.
 */
export class EntityRows<E extends ObjectLiteral> {
  /** `alias.column AS alias_column, …` for every column of the entity. */
  readonly select: string;
  private readonly metadata: EntityMetadata;
  private readonly columns: { column: ColumnMetadata; key: string }[];

  constructor(
    private readonly dataSource: DataSource,
    target: EntityTarget<E>,
    readonly alias: string,
  ) {
    this.metadata = dataSource.getMetadata(target);
    this.columns = this.metadata.columns.map((column) => ({
      column,
      key: `${alias}_${column.databaseName}`,
    }));
    this.select = this.columns
      .map(({ column, key }) => `${alias}.${column.databaseName} AS ${key}`)
      .join(', ');
  }

  /** The raw key the entity's id comes back under. */
  get idKey(): string {
    return `${this.alias}_${this.metadata.primaryColumns[0].databaseName}`;
  }

  read(row: Record<string, unknown>): E {
    const entity = this.metadata.create() as E;
    const driver = this.dataSource.driver;
    for (const { column, key } of this.columns) {
      column.setEntityValue(entity, driver.prepareHydratedValue(row[key], column));
    }
    return entity;
  }
}
