import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { auditedColumns, counterColumn, refColumn, stringColumn, timeColumn } from '../schema';

/**
 * A notification's WalletA fan-out cut into shards that any worker claims under a lease
 * (`notification_shard`), and on the notification how many there are (`shard_count`, NULL until
 * the cut, which happens once). `(notification_id, position)` is unique, so a second cut of the
 * same notification cannot commit; `(state, id)` is what workers look for open shards along.
 */
export class NotificationShards1764010000000 implements MigrationInterface {
  name = 'NotificationShards1764010000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'notification',
      new TableColumn({ name: 'shard_count', type: 'int', isNullable: true }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'notification_shard',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('notification_id'),
          { name: 'position', type: 'int', isNullable: false },
          refColumn('after_id', true),
          refColumn('up_to_id', true),
          refColumn('fanout_cursor', true),
          stringColumn('state', 16),
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          counterColumn('attempts'),
        ],
        uniques: [{ name: 'uq_notification_shard', columnNames: ['notification_id', 'position'] }],
        indices: [{ name: 'ix_notification_shard_state', columnNames: ['state', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_notification_shard_notification',
            columnNames: ['notification_id'],
            referencedTableName: 'notification',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('notification_shard');
    await queryRunner.dropColumn('notification', 'shard_count');
  }
}
