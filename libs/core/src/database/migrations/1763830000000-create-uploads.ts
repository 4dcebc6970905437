import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { auditedColumns, refColumn, stringColumn } from '../schema';

/** Uploaded files: the record behind each `uploadKey`; the bytes are in the storage driver. */
export class CreateUploads1763830000000 implements MigrationInterface {
  name = 'CreateUploads1763830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'upload',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          stringColumn('bucket', 63),
          stringColumn('storage_key', 512),
          stringColumn('file_name', 255),
          stringColumn('content_type', 100),
          { name: 'size', type: 'int', isNullable: false },
          { name: 'sha256', type: 'char', length: '64', isNullable: false },
        ],
        indices: [{ name: 'ix_upload_workspace', columnNames: ['workspace_id', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_upload_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('upload');
  }
}
