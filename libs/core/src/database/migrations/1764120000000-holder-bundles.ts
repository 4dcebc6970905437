import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { dialectOfType } from '../dialect';
import { auditedColumns, jsonColumn, refColumn, stringColumn } from '../schema';

/**
 * Bundles of holders ("many passes, one tap"): 2–10 holders of one pass handed
 * over together, e.g. a family's tickets. `bundle_token` is the unguessable part of the bundle's
 * links (`/p/{slug}/b/{bundleToken}`), looked up alone, so it is unique across passes and
 * compared byte for byte (binary collation on MySQL/MariaDB, as `holder.holder_token`);
 * `holder_ids` is the ordered list of the holders' ids (JSON), the order their passes are shown
 * and added in.
 */
export class HolderBundles1764120000000 implements MigrationInterface {
  name = 'HolderBundles1764120000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;
    const binary = dialectOfType(dialect).isMysql ? { collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'holder_bundle',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          { ...stringColumn('bundle_token', 64), ...binary },
          jsonColumn('holder_ids', dialect),
        ],
        uniques: [{ name: 'uq_holder_bundle_token', columnNames: ['bundle_token'] }],
        foreignKeys: [
          {
            name: 'fk_holder_bundle_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
          {
            name: 'fk_holder_bundle_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('holder_bundle');
  }
}
