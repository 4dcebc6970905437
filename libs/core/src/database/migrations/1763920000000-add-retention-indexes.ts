import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { timeColumn } from '../schema';

/**
 * What the retention worker deletes by (libs/core/src/retention): finished jobs by when they
 * finished, deliveries by when they were recorded, WalletB callback nonces by when their
 * callback expires (`expires_time`, Google's `expTimeMillis`; until then Google may send the
 * callback again and the nonce must still be known). Rows recorded before this migration have
 * no expiry and are judged by `received_time`, hence the second column of that index.
 */
export class AddRetentionIndexes1763920000000 implements MigrationInterface {
  name = 'AddRetentionIndexes1763920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'wallet_a_push_job',
      new TableIndex({ name: 'ix_push_job_finished', columnNames: ['finished_time'] }),
    );
    await queryRunner.createIndex(
      'wallet_b_sync_job',
      new TableIndex({ name: 'ix_wallet_b_sync_job_finished', columnNames: ['finished_time'] }),
    );
    await queryRunner.createIndex(
      'notification_delivery',
      new TableIndex({ name: 'ix_delivery_created', columnNames: ['created_time'] }),
    );
    await queryRunner.addColumn(
      'wallet_b_callback',
      new TableColumn(timeColumn('expires_time', true)),
    );
    await queryRunner.createIndex(
      'wallet_b_callback',
      new TableIndex({
        name: 'ix_wallet_b_callback_expires',
        columnNames: ['expires_time', 'received_time'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('wallet_b_callback', 'ix_wallet_b_callback_expires');
    await queryRunner.dropColumn('wallet_b_callback', 'expires_time');
    await queryRunner.dropIndex('notification_delivery', 'ix_delivery_created');
    await queryRunner.dropIndex('wallet_b_sync_job', 'ix_wallet_b_sync_job_finished');
    await queryRunner.dropIndex('wallet_a_push_job', 'ix_push_job_finished');
  }
}
