import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { counterColumn, idColumn, refColumn, stringColumn, timeColumn } from '../schema';

/**
 * WalletA: each pass's authenticationToken (hashed, and encrypted for re-packaging), the
 * devices registered through Apple's PassKit web service, and the queue of update pushes.
 */
export class CreateWalletA1763850000000 implements MigrationInterface {
  name = 'CreateWalletA1763850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('pass', [
      new TableColumn(stringColumn('wallet_a_token_hash', 64, true)),
      new TableColumn(stringColumn('wallet_a_token', 255, true)),
    ]);

    await queryRunner.createTable(
      new Table({
        name: 'wallet_a_registration',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('device_library_id', 255),
          stringColumn('push_token', 255),
          timeColumn('created_time'),
          timeColumn('updated_time'),
          // Set when the device unregistered or APNs said the token is gone.
          timeColumn('removed_time', true),
        ],
        uniques: [
          { name: 'uq_registration_device_pass', columnNames: ['device_library_id', 'pass_id'] },
        ],
        indices: [
          { name: 'ix_registration_pass', columnNames: ['pass_id', 'removed_time', 'id'] },
          { name: 'ix_registration_device', columnNames: ['device_library_id', 'removed_time'] },
        ],
        foreignKeys: [
          {
            name: 'fk_registration_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'wallet_a_push_job',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          { name: 'pass_version', type: 'int', isNullable: false },
          stringColumn('state', 16),
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          // Registrations are pushed in id order; a resumed job starts after this one.
          refColumn('last_registration_id', true),
          counterColumn('pushed_count'),
          counterColumn('unregistered_count'),
          counterColumn('failed_count'),
          counterColumn('attempts'),
          timeColumn('created_time'),
          timeColumn('updated_time'),
          timeColumn('finished_time', true),
        ],
        indices: [
          { name: 'ix_push_job_state', columnNames: ['state', 'id'] },
          { name: 'ix_push_job_pass', columnNames: ['pass_id', 'state'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('wallet_a_push_job');
    await queryRunner.dropTable('wallet_a_registration');
    await queryRunner.dropColumn('pass', 'wallet_a_token');
    await queryRunner.dropColumn('pass', 'wallet_a_token_hash');
  }
}
