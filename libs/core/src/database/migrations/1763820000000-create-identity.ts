import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { auditedColumns, booleanColumn, refColumn, stringColumn, timeColumn } from '../schema';

/** Organisations, users, workspaces, memberships, default accounts and API keys. */
export class CreateIdentity1763820000000 implements MigrationInterface {
  name = 'CreateIdentity1763820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'organisation',
        columns: [...auditedColumns(), stringColumn('name', 255)],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'app_user',
        columns: [
          ...auditedColumns(),
          refColumn('organisation_id'),
          stringColumn('email', 320),
          stringColumn('password_hash', 255),
          stringColumn('role', 16),
          timeColumn('removed_time', true),
        ],
        uniques: [{ name: 'uq_app_user_email', columnNames: ['email'] }],
        indices: [{ name: 'ix_app_user_organisation', columnNames: ['organisation_id'] }],
        foreignKeys: [
          {
            name: 'fk_app_user_organisation',
            columnNames: ['organisation_id'],
            referencedTableName: 'organisation',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'workspace',
        columns: [...auditedColumns(), refColumn('organisation_id'), stringColumn('name', 255)],
        uniques: [{ name: 'uq_workspace_name', columnNames: ['organisation_id', 'name'] }],
        foreignKeys: [
          {
            name: 'fk_workspace_organisation',
            columnNames: ['organisation_id'],
            referencedTableName: 'organisation',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'workspace_membership',
        columns: [
          { ...refColumn('workspace_id'), isPrimary: true },
          { ...refColumn('user_id'), isPrimary: true },
          timeColumn('created_time'),
          refColumn('created_by', true),
        ],
        indices: [{ name: 'ix_membership_user', columnNames: ['user_id', 'created_time'] }],
        foreignKeys: [
          {
            name: 'fk_membership_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'fk_membership_user',
            columnNames: ['user_id'],
            referencedTableName: 'app_user',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'account',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          stringColumn('name', 255),
          booleanColumn('is_default', false),
        ],
        indices: [{ name: 'ix_account_workspace', columnNames: ['workspace_id', 'is_default'] }],
        foreignKeys: [
          {
            name: 'fk_account_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'api_key',
        columns: [
          ...auditedColumns(),
          refColumn('organisation_id'),
          refColumn('user_id'),
          stringColumn('name', 255),
          stringColumn('secret_hash', 64),
          timeColumn('last_used_time', true),
          timeColumn('revoked_time', true),
        ],
        indices: [{ name: 'ix_api_key_user', columnNames: ['user_id'] }],
        foreignKeys: [
          {
            name: 'fk_api_key_user',
            columnNames: ['user_id'],
            referencedTableName: 'app_user',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'api_key',
      'account',
      'workspace_membership',
      'workspace',
      'app_user',
      'organisation',
    ]) {
      await queryRunner.dropTable(table);
    }
  }
}
