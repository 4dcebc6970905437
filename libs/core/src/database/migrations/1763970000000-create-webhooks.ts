import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import {
  auditedColumns,
  booleanColumn,
  counterColumn,
  idColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/**
 * Webhooks: the endpoints of a workspace and the outbox of deliveries, one row
 * per event and endpoint, written in the transaction of the change that caused the event.
 *
 * - `ix_webhook_endpoint_workspace` (workspace_id, id): the list's keyset pages, and the lookup
 *   of a workspace's endpoints that every recorded event makes.
 * - `ix_webhook_delivery_due` (status, next_attempt_time): what the workers claim, oldest due
 *   first.
 * - `ix_webhook_delivery_endpoint` (endpoint_id, id): an endpoint's deliveries, newest first,
 *   and deleting them with it.
 * - `ix_webhook_delivery_finished` (finished_time): what retention deletes.
 *
 * No foreign key from deliveries to endpoints: an event recorded while its endpoint is being
 * deleted must not fail the change that caused it; the worker drops deliveries whose endpoint
 * is gone, and deleting an endpoint deletes its deliveries.
 */
export class CreateWebhooks1763970000000 implements MigrationInterface {
  name = 'CreateWebhooks1763970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;

    await queryRunner.createTable(
      new Table({
        name: 'webhook_endpoint',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          stringColumn('url', 2048),
          stringColumn('description', 500, true),
          jsonColumn('events', dialect),
          booleanColumn('enabled', true),
          stringColumn('secret_sealed', 255),
        ],
        indices: [{ name: 'ix_webhook_endpoint_workspace', columnNames: ['workspace_id', 'id'] }],
        foreignKeys: [
          {
            name: 'fk_webhook_endpoint_workspace',
            columnNames: ['workspace_id'],
            referencedTableName: 'workspace',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'webhook_delivery',
        columns: [
          idColumn(),
          refColumn('workspace_id'),
          refColumn('endpoint_id'),
          stringColumn('event_id', 40),
          stringColumn('event_type', 32),
          jsonColumn('body', dialect),
          stringColumn('status', 16),
          timeColumn('next_attempt_time', true),
          { name: 'last_status_code', type: 'int', isNullable: true },
          stringColumn('last_error', 255, true),
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          counterColumn('attempts'),
          timeColumn('created_time'),
          timeColumn('updated_time'),
          timeColumn('finished_time', true),
        ],
        indices: [
          { name: 'ix_webhook_delivery_due', columnNames: ['status', 'next_attempt_time'] },
          { name: 'ix_webhook_delivery_endpoint', columnNames: ['endpoint_id', 'id'] },
          { name: 'ix_webhook_delivery_finished', columnNames: ['finished_time'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_delivery');
    await queryRunner.dropTable('webhook_endpoint');
  }
}
