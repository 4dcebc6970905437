import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { refColumn, replaceUniqueKey, stringColumn } from '../schema';

/**
 * Personal passes on WalletA:
 *
 * - each holder's own `authenticationToken`, hashed (to check devices) and encrypted (to put
 *   the same token into every later package), as the pass's own token;
 * - registrations tied to a holder (`holder_id`, NULL for the shared pass) and keyed by the
 *   serial number the device registered (the pass id or the holder's serial): a device may
 *   hold the shared pass and personal copies of the same pass side by side, so the old unique
 *   key `(device_library_id, pass_id)` becomes `(device_library_id, serial_number)`. A unique
 *   key on `(device_library_id, pass_id, holder_id)` would not do: NULLs never clash;
 * - push jobs for one holder (`holder_id`) or for the holders of a pass changed since a time
 *   (`holders_since`, an import), besides the pass-wide jobs (both NULL).
 */
export class HoldersWalletA1763940000000 implements MigrationInterface {
  name = 'HoldersWalletA1763940000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('holder', [
      new TableColumn(stringColumn('wallet_a_token_hash', 64, true)),
      new TableColumn(stringColumn('wallet_a_token', 255, true)),
    ]);

    await queryRunner.addColumns('wallet_a_registration', [
      new TableColumn(refColumn('holder_id', true)),
      new TableColumn({ ...stringColumn('serial_number', 64), default: "''" }),
    ]);
    // Every registration so far is of a shared pass, whose serial number is the pass id.
    await queryRunner.query('UPDATE wallet_a_registration SET serial_number = pass_id');
    await replaceUniqueKey(
      queryRunner,
      'wallet_a_registration',
      'uq_registration_device_pass',
      'uq_registration_device_serial',
      ['device_library_id', 'serial_number'],
    );
    // A holder's push reads its registrations along this, in id order (as a pass's do).
    await queryRunner.createIndex(
      'wallet_a_registration',
      new TableIndex({
        name: 'ix_registration_holder',
        columnNames: ['holder_id', 'removed_time', 'id'],
      }),
    );

    await queryRunner.addColumns('wallet_a_push_job', [
      new TableColumn(refColumn('holder_id', true)),
      new TableColumn({ name: 'holders_since', type: 'datetime', precision: 3, isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('wallet_a_push_job', 'holders_since');
    await queryRunner.dropColumn('wallet_a_push_job', 'holder_id');
    await queryRunner.dropIndex('wallet_a_registration', 'ix_registration_holder');
    await queryRunner.query('DELETE FROM wallet_a_registration WHERE holder_id IS NOT NULL');
    await replaceUniqueKey(
      queryRunner,
      'wallet_a_registration',
      'uq_registration_device_serial',
      'uq_registration_device_pass',
      ['device_library_id', 'pass_id'],
    );
    await queryRunner.dropColumn('wallet_a_registration', 'serial_number');
    await queryRunner.dropColumn('wallet_a_registration', 'holder_id');
    await queryRunner.dropColumn('holder', 'wallet_a_token');
    await queryRunner.dropColumn('holder', 'wallet_a_token_hash');
  }
}
