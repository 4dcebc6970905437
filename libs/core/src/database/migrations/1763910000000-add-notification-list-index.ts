import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The notification list filtered by pass (`GET /v1/wallet-pass/notifications?passSerialNumber=`)
 * reads its pages along (workspace_id, pass_id, id): a range that starts at the cursor, however
 * deep the page. Without it MariaDB 10.11 read 50,210 rows for page 251 of one pass's 10,000
 * notifications (a `ref` on the workspace), or 210 with `ix_notification_workspace` forced (every
 * notification of the workspace's other passes in between); with it, 21. The unfiltered list
 * already has `ix_notification_workspace` (workspace_id, id).
 */
export class AddNotificationListIndex1763910000000 implements MigrationInterface {
  name = 'AddNotificationListIndex1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'notification',
      new TableIndex({
        name: 'ix_notification_workspace_pass',
        columnNames: ['workspace_id', 'pass_id', 'id'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('notification', 'ix_notification_workspace_pass');
  }
}
