import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  ObjectLiteral,
} from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { rawQuery } from './raw-query';

/**
 * An entity's columns for hand-written SQL on hot paths: the reader that turns a raw row back
 * into the entity as TypeORM would (the driver converts each value: SQLite's date text,
 * `simple-json`), and a multi-row INSERT that converts values the same way. The query builder
 * rebuilds its SQL text and walks its alias and relation machinery on every query, and names
 * each insert parameter by searching the names made before it; on the busiest paths that cost
 * more than the query itself (BENCHMARKS.md). Everywhere else the query builder stays.
 */
export class EntityRows<E extends ObjectLiteral> {
  /** `alias.column AS alias_column, …` for every column of the entity. */
  readonly select: string;
  private readonly insertInto: string;
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
    const quote = (name: string): string => dataSource.driver.escape(name);
    this.select = this.columns
      .map(({ column, key }) => `${alias}.${quote(column.databaseName)} AS ${key}`)
      .join(', ');
    const names = this.columns.map(({ column }) => quote(column.databaseName)).join(', ');
    this.insertInto = `INSERT INTO ${quote(this.metadata.tableName)} (${names})`;
  }

  /** The raw key the entity's id comes back under. */
  get idKey(): string {
    return `${this.alias}_${this.metadata.primaryColumns[0].databaseName}`;
  }

  /**
   * Inserts every column of each entity in one statement (no read-back: the caller sets every
   * column, as `stampCreated` and the services do). `runner` is the data source or, inside a
   * transaction, its entity manager.
   */
  async insert(runner: DataSource | EntityManager, entities: E[]): Promise<void> {
    if (entities.length === 0) return;
    const driver = this.dataSource.driver;
    const row = `(${this.columns.map(() => '?').join(', ')})`;
    await rawQuery(
      runner,
      `${this.insertInto} VALUES ${entities.map(() => row).join(', ')}`,
      entities.flatMap((entity) =>
        this.columns.map(({ column }): unknown =>
          driver.preparePersistentValue(column.getEntityValue(entity), column),
        ),
      ),
    );
  }

  /**
   * Writes `properties` of each entity, each row its own values, in one statement: `SET column =
   * CASE id WHEN ? THEN ? … END, … WHERE <scope> AND id IN (…)` (plain SQL on both dialects),
   * values converted as {@link insert} converts them. For many rows changed at once (a bulk
   * change's batch), where one UPDATE per row costs a round trip each. `scope` names columns the
   * rows must also match (the workspace, the pass), by property. Parameters: 2 per row and
   * property plus 1 per row, so a caller keeps each call to a few hundred rows.
   */
  async update(
    runner: DataSource | EntityManager,
    entities: E[],
    properties: readonly string[],
    scope: Record<string, unknown> = {},
  ): Promise<void> {
    if (entities.length === 0 || properties.length === 0) return;
    const driver = this.dataSource.driver;
    const quote = (name: string): string => driver.escape(name);
    const key = this.metadata.primaryColumns[0];
    const ids = entities.map((entity): unknown => key.getEntityValue(entity));
    const params: unknown[] = [];
    const sets = properties.map((property) => {
      const column = this.columnOf(property);
      const cases = entities.map((entity, index) => {
        params.push(
          ids[index],
          driver.preparePersistentValue(column.getEntityValue(entity), column),
        );
        return 'WHEN ? THEN ?';
      });
      return `${quote(column.databaseName)} = CASE ${quote(key.databaseName)} ${cases.join(' ')} END`;
    });
    const where = Object.entries(scope).map(([property, value]) => {
      const column = this.columnOf(property);
      params.push(driver.preparePersistentValue(value, column));
      return `${quote(column.databaseName)} = ?`;
    });
    where.push(`${quote(key.databaseName)} IN (${ids.map(() => '?').join(', ')})`);
    params.push(...ids);
    await rawQuery(
      runner,
      `UPDATE ${quote(this.metadata.tableName)} SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`,
      params,
    );
  }

  private columnOf(property: string): ColumnMetadata {
    const column = this.metadata.findColumnWithPropertyName(property);
    if (column === undefined) throw new Error(`${this.metadata.name} has no column ${property}`);
    return column;
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
