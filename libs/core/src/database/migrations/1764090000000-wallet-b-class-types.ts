import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { refColumn, stringColumn, timeColumn } from '../schema';

/**
 * `wallet_b_class`: the WalletB class type of each pass, fixed when the pass first
 * needs a class. Every pass Published so far has a generic class at Google, with holders'
 * generic objects saved in wallets: they are recorded as generic here, so they keep that type
 * whatever kind of pass they are (a store card is a loyalty class only when it is new). A Draft
 * has nothing at Google yet and gets its type when it is published. `created_time` of those
 * rows is the pass's own: the class has been that type since then.
 */
export class WalletBClassTypes1764090000000 implements MigrationInterface {
  name = 'WalletBClassTypes1764090000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'wallet_b_class',
        columns: [
          { ...refColumn('pass_id'), isPrimary: true },
          refColumn('workspace_id'),
          stringColumn('class_type', 16),
          timeColumn('created_time'),
        ],
        foreignKeys: [
          {
            name: 'fk_wallet_b_class_pass',
            columnNames: ['pass_id'],
            referencedTableName: 'pass',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
    await queryRunner.query(
      'INSERT INTO wallet_b_class (pass_id, workspace_id, class_type, created_time) ' +
        "SELECT id, workspace_id, 'generic', created_time FROM pass WHERE status = 'Published'",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('wallet_b_class');
  }
}
