import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import {
  auditedColumns,
  counterColumn,
  idColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/**
 * Pass notifications, one delivery row per WalletA device they were pushed to (so a resumed
 * fan-out skips those already done), and the message field a notification puts on the pass.
 */
export class CreateNotifications1763870000000 implements MigrationInterface {
  name = 'CreateNotifications1763870000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;

    await queryRunner.addColumn(
      'pass',
      new TableColumn(jsonColumn('wallet_a_message', dialect, true)),
    );

    await queryRunner.createTable(
      new Table({
        name: 'notification',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          refColumn('account_id'),
          stringColumn('notification_name', 255),
          { name: 'notification_message', type: 'text', isNullable: true },
          stringColumn('status', 32),
          timeColumn('scheduled_time', true),
          timeColumn('published_time', true),
          timeColumn('sent_time', true),
          counterColumn('apple_sent_count'),
          counterColumn('google_sent_count'),
          counterColumn('total_sent_count'),
          // Delivery bookkeeping: who holds the job until when, and how far it got.
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          counterColumn('attempts'),
          { name: 'prepared_version', type: 'int', isNullable: true },
          refColumn('fanout_cursor', true),
          stringColumn('apple_outcome', 16, true),
          stringColumn('google_outcome', 16, true),
          { name: 'failure_reason', type: 'text', isNullable: true },
        ],
        indices: [
          { name: 'ix_notification_workspace', columnNames: ['workspace_id', 'id'] },
          { name: 'ix_notification_due', columnNames: ['status', 'scheduled_time'] },
          { name: 'ix_notification_pass', columnNames: ['pass_id', 'published_time'] },
        ],
        foreignKeys: [
          {
            name: 'fk_notification_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'notification_delivery',
        columns: [
          idColumn(),
          refColumn('notification_id'),
          refColumn('registration_id'),
          stringColumn('outcome', 16),
          stringColumn('reason', 255, true),
          timeColumn('created_time'),
        ],
        uniques: [
          {
            name: 'uq_delivery_recipient',
            columnNames: ['notification_id', 'registration_id'],
          },
        ],
        foreignKeys: [
          {
            name: 'fk_delivery_notification',
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
    await queryRunner.dropTable('notification_delivery');
    await queryRunner.dropTable('notification');
    await queryRunner.dropColumn('pass', 'wallet_a_message');
  }
}
