import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { booleanColumn, replaceUniqueKey } from '../schema';

/**
 * Whether the posts a device log entry counts came from an address that had just sent its
 * serial number's `ApplePass` token (`verified`). Entries kept before were never checked, so
 * they read as unverified. Verified and unverified posts of the same message are separate
 * entries, so that text anyone can post never adds to what a device reported: the unique key
 * `(pass_id, serial_number, message_hash)` gains the column.
 */
export class DeviceLogVerified1764140000000 implements MigrationInterface {
  name = 'DeviceLogVerified1764140000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'wallet_a_device_log',
      new TableColumn(booleanColumn('verified', false)),
    );
    await replaceUniqueKey(
      queryRunner,
      'wallet_a_device_log',
      'uq_device_log_message',
      'uq_device_log_message_verified',
      ['pass_id', 'serial_number', 'message_hash', 'verified'],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The old key allows one entry a message: of two, the device's stays. The inner select is
    // a derived table because MySQL refuses a DELETE that reads its own table directly.
    await queryRunner.query(
      'DELETE FROM wallet_a_device_log WHERE id IN (SELECT id FROM (' +
        'SELECT u.id FROM wallet_a_device_log u JOIN wallet_a_device_log v ' +
        'ON v.pass_id = u.pass_id AND v.serial_number = u.serial_number ' +
        'AND v.message_hash = u.message_hash AND v.verified = 1 WHERE u.verified = 0) twins)',
    );
    await replaceUniqueKey(
      queryRunner,
      'wallet_a_device_log',
      'uq_device_log_message_verified',
      'uq_device_log_message',
      ['pass_id', 'serial_number', 'message_hash'],
    );
    await queryRunner.dropColumn('wallet_a_device_log', 'verified');
  }
}
