import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { counterColumn, idColumn, refColumn, stringColumn, timeColumn } from '../schema';

/**
 * WalletB (Google Wallet): the objects holders saved (driving the google* counters), the
 * nonces of the save/delete callbacks already applied, the messages added to pass classes
 * (to count notifying ones per pass and day), and the queue of class syncs.
 */
export class CreateWalletB1763880000000 implements MigrationInterface {
  name = 'CreateWalletB1763880000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'wallet_b_object',
        columns: [
          idColumn(),
          // Google's object id, `<issuer id>.<pass id>-<random>`.
          stringColumn('object_id', 255),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          timeColumn('saved_time'),
          // Set when the holder deleted the object from their wallet.
          timeColumn('deleted_time', true),
          timeColumn('created_time'),
          timeColumn('updated_time'),
        ],
        uniques: [{ name: 'uq_wallet_b_object_object_id', columnNames: ['object_id'] }],
        indices: [
          { name: 'ix_wallet_b_object_pass', columnNames: ['pass_id', 'deleted_time', 'id'] },
        ],
        foreignKeys: [
          {
            name: 'fk_wallet_b_object_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'wallet_b_callback',
        columns: [
          { ...stringColumn('nonce', 255), isPrimary: true },
          stringColumn('event_type', 8),
          stringColumn('object_id', 255),
          refColumn('pass_id'),
          timeColumn('received_time'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'wallet_b_message',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('message_id', 255),
          // TEXT_AND_NOTIFY or TEXT: what was (or is being) sent to Google.
          stringColumn('message_type', 16),
          // pending while the request is out, then sent or failed.
          stringColumn('state', 16),
          // The pass's googleActiveCount when the message was sent.
          counterColumn('recipients'),
          timeColumn('created_time'),
          timeColumn('updated_time'),
        ],
        // A message id is sent once per pass (a caller retrying after a crash gets the first result).
        uniques: [{ name: 'uq_wallet_b_message_id', columnNames: ['pass_id', 'message_id'] }],
        indices: [
          {
            name: 'ix_wallet_b_message_pass',
            columnNames: ['pass_id', 'message_type', 'created_time'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'wallet_b_sync_job',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('state', 16),
          counterColumn('attempts'),
          timeColumn('next_attempt_time'),
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          // Holders' objects are patched in id order; a resumed job starts after this one.
          refColumn('last_object_id', true),
          // SHA-256 of what the objects show, to skip patching them when it did not change.
          stringColumn('object_hash', 64, true),
          stringColumn('last_error', 1000, true),
          timeColumn('created_time'),
          timeColumn('updated_time'),
          timeColumn('finished_time', true),
        ],
        indices: [
          { name: 'ix_wallet_b_sync_job_due', columnNames: ['state', 'next_attempt_time', 'id'] },
          { name: 'ix_wallet_b_sync_job_pass', columnNames: ['pass_id', 'state'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('wallet_b_sync_job');
    await queryRunner.dropTable('wallet_b_message');
    await queryRunner.dropTable('wallet_b_callback');
    await queryRunner.dropTable('wallet_b_object');
  }
}
