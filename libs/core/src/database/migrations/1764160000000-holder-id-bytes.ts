import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOfType } from '../dialect';

/**
 * Every column that holds a holder's id: the holder's own, and each `holder_id` that is joined
 * to it or probed with it.
 */
const HOLDER_ID_COLUMNS: readonly (readonly [table: string, column: string])[] = [
  ['holder', 'id'],
  ['holder_tag', 'holder_id'],
  ['holder_value', 'holder_id'],
  ['audience_member', 'holder_id'],
  ['wallet_a_registration', 'holder_id'],
  ['wallet_a_fetch', 'holder_id'],
  ['wallet_a_push_job', 'holder_id'],
  ['wallet_a_device_log', 'holder_id'],
  ['wallet_b_object', 'holder_id'],
  ['wallet_b_sync_job', 'holder_id'],
];

/**
 * Holder ids compared byte for byte on MySQL/MariaDB (`ascii_bin`), as SQLite compares them.
 * An audience is counted and snapshotted by probing `holder_tag`, `holder_value` and `holder`
 * with holder ids, up to a few million probes for a broad audience over 1,000,000 holders, and
 * the database's default collation (utf8mb4_unicode_ci) compares two ids through Unicode
 * collation weights: the `any` of three tests over 100,000 holders took 0.92–1.48 s, and with
 * `ascii_bin` ids 0.20–0.23 s (`utf8mb4_bin`: 0.32–0.48 s). Ids are generated UUIDs, and every
 * id a caller sends is checked against `ID_PATTERN` (ASCII letters, digits, `-`, `_`) before a
 * query sees it, so no id needs more than ASCII. Every column compared with `holder.id`
 * changes with it: two different collations in one comparison are an error on MySQL/MariaDB.
 * SQLite: nothing to do (BINARY already).
 */
export class HolderIdBytes1764160000000 implements MigrationInterface {
  name = 'HolderIdBytes1764160000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.charset(queryRunner, 'ascii COLLATE ascii_bin');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.charset(queryRunner, 'utf8mb4 COLLATE utf8mb4_unicode_ci');
  }

  private async charset(queryRunner: QueryRunner, charset: string): Promise<void> {
    if (!dialectOfType(queryRunner.connection.options.type).isMysql) return;
    for (const [tableName, columnName] of HOLDER_ID_COLUMNS) {
      const table = await queryRunner.getTable(tableName);
      const column = table?.findColumnByName(columnName);
      if (column === undefined) throw new Error(`no column ${tableName}.${columnName}`);
      await queryRunner.query(
        `ALTER TABLE \`${tableName}\` MODIFY \`${columnName}\` VARCHAR(36) ` +
          `CHARACTER SET ${charset} ${column.isNullable ? 'NULL' : 'NOT NULL'}`,
      );
    }
  }
}
