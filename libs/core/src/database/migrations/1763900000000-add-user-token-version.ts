import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { counterColumn, timeColumn } from '../schema';

/**
 * What makes a user's bearer tokens stop working: `token_version` is raised on every password
 * change, removal and re-add, and our tokens carry the version they were issued under (claim
 * `tv`); `credentials_changed_time` is when that happened, for identity-provider tokens that
 * cannot carry our version and are judged by their `iat` instead.
 */
export class AddUserTokenVersion1763900000000 implements MigrationInterface {
  name = 'AddUserTokenVersion1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('app_user', [
      new TableColumn(counterColumn('token_version')),
      new TableColumn(timeColumn('credentials_changed_time', true)),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('app_user', ['credentials_changed_time', 'token_version']);
  }
}
