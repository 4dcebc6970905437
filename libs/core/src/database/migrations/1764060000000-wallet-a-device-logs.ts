import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { counterColumn, idColumn, refColumn, stringColumn, timeColumn } from '../schema';

/**
 * What Wallet on devices posts to the PassKit web service's `/log`, kept per pass by the serial
 * number a message names (`wallet_a_device_log`). A repeated message is one row with a count:
 * `(pass_id, serial_number, message_hash)` is unique. `(pass_id, last_time, id)` is what the
 * list pages along and what the per-pass bound trims along (least recently seen first);
 * `last_time` alone is what retention looks for old rows along.
 */
export class WalletADeviceLogs1764060000000 implements MigrationInterface {
  name = 'WalletADeviceLogs1764060000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'wallet_a_device_log',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          refColumn('holder_id', true),
          stringColumn('serial_number', 64),
          { name: 'message', type: 'text', isNullable: false },
          // SHA-256 (hex) of the message.
          stringColumn('message_hash', 64),
          counterColumn('count'),
          timeColumn('first_time'),
          timeColumn('last_time'),
        ],
        uniques: [
          {
            name: 'uq_device_log_message',
            columnNames: ['pass_id', 'serial_number', 'message_hash'],
          },
        ],
        indices: [
          { name: 'ix_device_log_pass', columnNames: ['pass_id', 'last_time', 'id'] },
          { name: 'ix_device_log_last_time', columnNames: ['last_time'] },
        ],
        foreignKeys: [
          {
            name: 'fk_device_log_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('wallet_a_device_log');
  }
}
