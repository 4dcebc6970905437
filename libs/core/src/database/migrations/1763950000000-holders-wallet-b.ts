import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { refColumn } from '../schema';

/**
 * Personal passes on WalletB:
 *
 * - a Google object saved through a holder's own link is that holder's (`holder_id`, NULL for
 *   objects of the shared pass), so callbacks move its `google_installed_count` and a sync
 *   patches it with the holder's values;
 * - sync jobs for one holder's object (`holder_id`) or for the objects of holders changed since
 *   a time (`holders_since`, an import), besides the pass-wide jobs (both NULL).
 */
export class HoldersWalletB1763950000000 implements MigrationInterface {
  name = 'HoldersWalletB1763950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('wallet_b_object', new TableColumn(refColumn('holder_id', true)));
    // An import's sync reads the objects of the pass's holders along this.
    await queryRunner.createIndex(
      'wallet_b_object',
      new TableIndex({ name: 'ix_wallet_b_object_holder', columnNames: ['holder_id'] }),
    );
    await queryRunner.addColumns('wallet_b_sync_job', [
      new TableColumn(refColumn('holder_id', true)),
      new TableColumn({ name: 'holders_since', type: 'datetime', precision: 3, isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('wallet_b_sync_job', 'holders_since');
    await queryRunner.dropColumn('wallet_b_sync_job', 'holder_id');
    await queryRunner.dropIndex('wallet_b_object', 'ix_wallet_b_object_holder');
    await queryRunner.dropColumn('wallet_b_object', 'holder_id');
  }
}
