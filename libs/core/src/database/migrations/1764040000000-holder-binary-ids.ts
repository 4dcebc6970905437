import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOfType } from '../dialect';

/** The holder columns that identify a holder and must compare byte for byte. */
const COLUMNS = ['external_id', 'holder_token', 'serial_number'] as const;

/**
 * Holder identifiers compared byte for byte on MySQL/MariaDB, as SQLite compares them. The
 * database's default collation (utf8mb4_unicode_ci) ignores case, so `Member-1` clashed with
 * `member-1` in `uq_holder_external_id` (a 409 on POST, a context-less 409 in an import, whose
 * in-memory map is case-exact), and the list's `externalId` filter matched across case.
 * `holder_token` (base64url) and `serial_number` are looked up alone (holder page, PassKit), so
 * they must not match another case either. The column is changed in place (ALTER TABLE ...
 * CHANGE, same type and length), so the unique keys and indexes on it stay as they are;
 * InnoDB rebuilds them with the new collation. SQLite: nothing to do (BINARY already).
 * `down` fails on a duplicate key once two holders of a pass differ only in case: the old
 * collation cannot hold them.
 */
export class HolderBinaryIds1764040000000 implements MigrationInterface {
  name = 'HolderBinaryIds1764040000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'utf8mb4_bin');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, undefined);
  }

  private async collate(queryRunner: QueryRunner, collation: string | undefined): Promise<void> {
    if (!dialectOfType(queryRunner.connection.options.type).isMysql) return;
    for (const name of COLUMNS) {
      const table = await queryRunner.getTable('holder');
      const column = table?.findColumnByName(name);
      if (table === undefined || column === undefined) throw new Error(`no column holder.${name}`);
      // A clone of the column as the database has it keeps type, length and nullability equal,
      // so TypeORM changes it in place instead of dropping and adding it (which loses data).
      const changed = column.clone();
      changed.collation = collation;
      await queryRunner.changeColumn(table, column, changed);
    }
  }
}
