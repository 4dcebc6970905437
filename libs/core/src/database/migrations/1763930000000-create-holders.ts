import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import {
  auditedColumns,
  counterColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/**
 * Holders: personal copies of a Published pass. `external_id` is the brand's
 * member id, unique per pass; `serial_number` and `holder_token` are random and unique across
 * passes, since the PassKit web service and the holder page find a holder by them alone.
 * `(workspace_id, pass_id, id)` is the index the list's keyset pages are read along;
 * `(workspace_id, pass_id, status, id)` serves the status filter the same way.
 */
export class CreateHolders1763930000000 implements MigrationInterface {
  name = 'CreateHolders1763930000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;

    await queryRunner.createTable(
      new Table({
        name: 'holder',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('external_id', 255),
          stringColumn('serial_number', 64),
          stringColumn('holder_token', 64),
          stringColumn('status', 16),
          jsonColumn('field_values', dialect),
          stringColumn('barcode_value', 2048, true),
          stringColumn('barcode_text', 255, true),
          counterColumn('apple_installed_count'),
          counterColumn('google_installed_count'),
          { name: 'version', type: 'int', isNullable: false, default: 1 },
          timeColumn('voided_time', true),
        ],
        uniques: [
          { name: 'uq_holder_external_id', columnNames: ['pass_id', 'external_id'] },
          { name: 'uq_holder_serial_number', columnNames: ['serial_number'] },
          { name: 'uq_holder_token', columnNames: ['holder_token'] },
        ],
        indices: [
          { name: 'ix_holder_pass', columnNames: ['workspace_id', 'pass_id', 'id'] },
          { name: 'ix_holder_status', columnNames: ['workspace_id', 'pass_id', 'status', 'id'] },
        ],
        foreignKeys: [
          {
            name: 'fk_holder_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
          {
            name: 'fk_holder_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('holder');
  }
}
