import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { jsonColumn } from '../schema';

/**
 * A boarding pass holder's `passengerName` (`{givenName, familyName}`), which
 * opts a flight into the semantic boarding pass; NULL: none.
 */
export class HolderPassengerName1764110000000 implements MigrationInterface {
  name = 'HolderPassengerName1764110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'holder',
      new TableColumn(jsonColumn('passenger_name', queryRunner.connection.options.type, true)),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('holder', 'passenger_name');
  }
}
