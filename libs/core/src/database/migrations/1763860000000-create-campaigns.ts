import { MigrationInterface, QueryRunner, Table, type TableColumnOptions } from 'typeorm';
import {
  auditedColumns,
  booleanColumn,
  counterColumn,
  jsonColumn,
  refColumn,
  stringColumn,
} from '../schema';

const dateColumn = (name: string): TableColumnOptions => ({ name, type: 'date', isNullable: true });

const textColumn = (name: string): TableColumnOptions => ({ name, type: 'text', isNullable: true });

/** A campaign's view figures and totals: sums over many videos outgrow `int`. */
const bigCountColumn = (name: string, nullable = false): TableColumnOptions =>
  nullable
    ? { name, type: 'bigint', isNullable: true }
    : { name, type: 'bigint', isNullable: false, default: 0 };

const uploadForeignKey = (column: string) => ({
  name: `fk_campaign_${column.replace(/_key$/, '')}`,
  columnNames: [column],
  referencedTableName: 'upload',
  referencedColumnNames: ['id'],
});

/** Promotional video campaigns, their derived campaign data, and video-performance records. */
export class CreateCampaigns1763860000000 implements MigrationInterface {
  name = 'CreateCampaigns1763860000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;
    const mysql = dialect === 'mysql' || dialect === 'mariadb';

    await queryRunner.createTable(
      new Table({
        name: 'campaign',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('account_id'),
          stringColumn('name', 255),
          // name lower-cased by the service, for the case-insensitive keyword search.
          stringColumn('name_key', 510),
          stringColumn('type', 32),
          stringColumn('status', 16),
          dateColumn('start_date'),
          dateColumn('end_date'),
          booleanColumn('is_published', false),
          jsonColumn('platforms', dialect),
          bigCountColumn('target_views', true),
          bigCountColumn('before_views', true),
          bigCountColumn('after_views', true),
          bigCountColumn('delivered_views', true),
          stringColumn('content_link', 2048, true),
          textColumn('submission_notes'),
          refColumn('before_image_key', true),
          refColumn('after_image_key', true),
          refColumn('campaign_data_file_key', true),
          refColumn('video_performance_file_key', true),
        ],
        indices: [{ name: 'ix_campaign_workspace', columnNames: ['workspace_id', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_campaign_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
          {
            name: 'fk_campaign_account',
            columnNames: ['account_id'],
            referencedTableName: 'account',
            referencedColumnNames: ['id'],
          },
          uploadForeignKey('before_image_key'),
          uploadForeignKey('after_image_key'),
          uploadForeignKey('campaign_data_file_key'),
          uploadForeignKey('video_performance_file_key'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'campaign_data',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('campaign_id'),
          bigCountColumn('total_views'),
          bigCountColumn('total_clicks'),
          bigCountColumn('total_likes'),
          bigCountColumn('total_creators'),
          bigCountColumn('total_comments'),
          bigCountColumn('total_shares'),
          bigCountColumn('total_videos'),
          bigCountColumn('social_a_views'),
          bigCountColumn('social_a_likes'),
          bigCountColumn('social_a_shares'),
          bigCountColumn('social_a_comments'),
          bigCountColumn('social_b_views'),
          bigCountColumn('social_b_likes'),
          bigCountColumn('social_b_shares'),
          bigCountColumn('social_b_comments'),
          stringColumn('asset_folder_link', 2048, true),
          textColumn('rec1'),
          textColumn('rec2'),
          textColumn('rec3'),
          textColumn('rec4'),
        ],
        uniques: [{ name: 'uq_campaign_data_campaign', columnNames: ['campaign_id'] }],
        foreignKeys: [
          {
            name: 'fk_campaign_data_campaign',
            columnNames: ['campaign_id'],
            referencedTableName: 'campaign',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'video_performance',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('campaign_id'),
          stringColumn('source', 8),
          stringColumn('platform', 16),
          stringColumn('video_url', 2048),
          stringColumn('creator_handle', 255),
          // Compared byte for byte when counting creators, on MySQL as on SQLite.
          { ...stringColumn('creator_key', 255), ...(mysql ? { collation: 'utf8mb4_bin' } : {}) },
          counterColumn('views'),
          counterColumn('likes'),
          counterColumn('shares'),
          counterColumn('comments'),
          counterColumn('saves'),
          dateColumn('date_posted'),
        ],
        indices: [{ name: 'ix_video_performance_campaign', columnNames: ['campaign_id', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_video_performance_campaign',
            columnNames: ['campaign_id'],
            referencedTableName: 'campaign',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('video_performance');
    await queryRunner.dropTable('campaign_data');
    await queryRunner.dropTable('campaign');
  }
}
