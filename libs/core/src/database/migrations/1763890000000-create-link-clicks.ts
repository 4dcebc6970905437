import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, refColumn, timeColumn } from '../schema';

/**
 * Clicks on short links (`GET /l/{slug}`), one row each. Rows are only ever inserted.
 * `(pass_id, clicked_time)` serves a pass's statistics for a time window. The only foreign key
 * is the short link's: the pass (and its workspace) follow from it, and a key on `pass` would
 * make every click wait for the pass row's lock while a pass or location change is committing.
 */
export class CreateLinkClicks1763890000000 implements MigrationInterface {
  name = 'CreateLinkClicks1763890000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'link_click',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          refColumn('short_link_id'),
          timeColumn('clicked_time'),
        ],
        indices: [
          { name: 'ix_link_click_pass_time', columnNames: ['pass_id', 'clicked_time'] },
          { name: 'ix_link_click_short_link', columnNames: ['short_link_id'] },
        ],
        foreignKeys: [
          {
            name: 'fk_link_click_short_link',
            columnNames: ['short_link_id'],
            referencedTableName: 'short_link',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('link_click');
  }
}
