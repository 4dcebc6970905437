import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { counterColumn, idColumn, refColumn, stringColumn, timeColumn } from '../schema';

/**
 * `wallet_a_fetch`: devices that fetched each version of a pass or of a holder's copy, by delay
 * bucket. One row per (serial number, version, bucket), added to in batches.
 * `ix_fetch_pass_time` (pass_id, version_time): a notification's confirmations are the fetches
 * of its pass's versions made since it was sent.
 */
export class DeviceFetches1764070000000 implements MigrationInterface {
  name = 'DeviceFetches1764070000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'wallet_a_fetch',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          refColumn('holder_id', true),
          stringColumn('serial_number', 64),
          counterColumn('pass_version'),
          counterColumn('holder_version'),
          timeColumn('version_time'),
          counterColumn('seconds_bucket'),
          counterColumn('fetches'),
        ],
        uniques: [
          {
            name: 'uq_fetch_version_bucket',
            columnNames: ['serial_number', 'pass_version', 'holder_version', 'seconds_bucket'],
          },
        ],
        indices: [{ name: 'ix_fetch_pass_time', columnNames: ['pass_id', 'version_time'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('wallet_a_fetch');
  }
}
