import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { stringColumn } from '../schema';

/**
 * A personal holder's own `relevantDate` and `expirationDate` (a ticket for a given
 * day). Kept as the ISO 8601 text the client sent, offset included, as pass.json and Google take
 * them; NULL: the pass's.
 */
export class HolderDates1764080000000 implements MigrationInterface {
  name = 'HolderDates1764080000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('holder', [
      new TableColumn(stringColumn('relevant_date', 40, true)),
      new TableColumn(stringColumn('expiration_date', 40, true)),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('holder', 'expiration_date');
    await queryRunner.dropColumn('holder', 'relevant_date');
  }
}
