import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { stringColumn } from '../schema';

/**
 * A holder's own NFC message (`nfcMessage`, at most 64 bytes of UTF-8), which replaces the pass's
 * `nfc.message` in their copy on both wallets; NULL: the pass's.
 */
export class HolderNfcMessage1764130000000 implements MigrationInterface {
  name = 'HolderNfcMessage1764130000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('holder', new TableColumn(stringColumn('nfc_message', 64, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('holder', 'nfc_message');
  }
}
