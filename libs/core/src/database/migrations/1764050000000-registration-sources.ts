import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { counterColumn, stringColumn } from '../schema';

/**
 * Registrations that are never refused:
 *
 * - `source`: where a shared-pass registration came from (a client IPv4 address, an IPv6 /64),
 *   so that one source keeps a bounded number of them; NULL for a holder's copy and for the
 *   registrations made before (they count against no source);
 * - `held_pass_version`, `held_holder_version`: the version of the package the device held when
 *   it registered (the pass's, and the holder's for a personal copy), for `/delivery`;
 * - `ix_registration_source` (serial_number, source, removed_time, updated_time): a source's (or a
 *   holder's copy's) active registrations, counted and the oldest found when one is replaced.
 */
export class RegistrationSources1764050000000 implements MigrationInterface {
  name = 'RegistrationSources1764050000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('wallet_a_registration', [
      new TableColumn(stringColumn('source', 64, true)),
      new TableColumn(counterColumn('held_pass_version')),
      new TableColumn(counterColumn('held_holder_version')),
    ]);
    await queryRunner.createIndex(
      'wallet_a_registration',
      new TableIndex({
        name: 'ix_registration_source',
        columnNames: ['serial_number', 'source', 'removed_time', 'updated_time'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('wallet_a_registration', 'ix_registration_source');
    await queryRunner.dropColumn('wallet_a_registration', 'held_holder_version');
    await queryRunner.dropColumn('wallet_a_registration', 'held_pass_version');
    await queryRunner.dropColumn('wallet_a_registration', 'source');
  }
}
