import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import {
  auditedColumns,
  booleanColumn,
  counterColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/** Passes, the short links of their back-field links, and their lock-screen locations. */
export class CreatePasses1763840000000 implements MigrationInterface {
  name = 'CreatePasses1763840000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;

    await queryRunner.createTable(
      new Table({
        name: 'pass',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('account_id'),
          stringColumn('pass_name', 255),
          // Lower-cased name while the pass exists, NULL once deleted: unique per workspace.
          stringColumn('name_key', 255, true),
          jsonColumn('pass_metadata', dialect),
          stringColumn('notification_header', 255, true),
          stringColumn('status', 16),
          stringColumn('slug', 64),
          jsonColumn('upload_info_list', dialect),
          counterColumn('apple_issued_count'),
          counterColumn('google_issued_count'),
          counterColumn('total_issued_count'),
          counterColumn('apple_active_count'),
          counterColumn('google_active_count'),
          counterColumn('total_active_count'),
          { name: 'version', type: 'int', isNullable: false, default: 1 },
          timeColumn('deleted_time', true),
        ],
        uniques: [
          { name: 'uq_pass_name', columnNames: ['workspace_id', 'name_key'] },
          { name: 'uq_pass_slug', columnNames: ['slug'] },
        ],
        indices: [{ name: 'ix_pass_workspace', columnNames: ['workspace_id', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_pass_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
          {
            name: 'fk_pass_account',
            columnNames: ['account_id'],
            referencedTableName: 'account',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'short_link',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('slug', 64),
          stringColumn('target_url', 2048),
          stringColumn('utm_source', 100, true),
        ],
        uniques: [{ name: 'uq_short_link_slug', columnNames: ['slug'] }],
        indices: [{ name: 'ix_short_link_pass', columnNames: ['pass_id'] }],
        foreignKeys: [
          {
            name: 'fk_short_link_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'pass_location',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id', true),
          stringColumn('name', 255),
          { name: 'latitude', type: 'double', isNullable: false },
          { name: 'longitude', type: 'double', isNullable: false },
          { name: 'altitude', type: 'double', isNullable: true },
          stringColumn('relevant_text', 255),
          booleanColumn('enabled', true),
        ],
        indices: [
          { name: 'ix_location_workspace', columnNames: ['workspace_id', 'id'] },
          { name: 'ix_location_pass', columnNames: ['pass_id', 'enabled'] },
        ],
        foreignKeys: [
          {
            name: 'fk_location_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
          {
            name: 'fk_location_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pass_location');
    await queryRunner.dropTable('short_link');
    await queryRunner.dropTable('pass');
  }
}
