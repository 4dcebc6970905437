import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { dialectOfType } from '../dialect';
import {
  auditedColumns,
  booleanColumn,
  counterColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/**
 * `automation`: rules of a pass that act on its holders. Names are unique per pass and
 * case-exact, as segment names are (binary collation on MariaDB, which also keeps the key of
 * 36 + 255 characters within its bounds); the pass's list reads the workspace, pass and id
 * index.
 */
export class CreateAutomations1764170000000 implements MigrationInterface {
  name = 'CreateAutomations1764170000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;
    const { isMysql } = dialectOfType(dialect);
    const binary = isMysql ? { collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'automation',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          { ...stringColumn('name', 255), ...binary },
          jsonColumn('trigger', dialect),
          jsonColumn('audience', dialect, true),
          jsonColumn('actions', dialect),
          booleanColumn('enabled', true),
          counterColumn('run_count'),
          counterColumn('skipped_count'),
          counterColumn('failed_count'),
          timeColumn('last_run_time', true),
        ],
        uniques: [{ name: 'uq_automation_name', columnNames: ['pass_id', 'name'] }],
        indices: [{ name: 'ix_automation_pass', columnNames: ['workspace_id', 'pass_id', 'id'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('automation');
  }
}
