import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `ix_webhook_delivery_endpoint_due` (endpoint_id, status, next_attempt_time): the delivery
 * worker claims per endpoint (each endpoint with due deliveries gets its share of the slots), so
 * it asks, per endpoint, whether anything is due and for its oldest due deliveries. Without it
 * those probes would read every delivery an endpoint has had in RETENTION_DAYS.
 */
export class WebhookDeliveryEndpointDue1764030000000 implements MigrationInterface {
  name = 'WebhookDeliveryEndpointDue1764030000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'webhook_delivery',
      new TableIndex({
        name: 'ix_webhook_delivery_endpoint_due',
        columnNames: ['endpoint_id', 'status', 'next_attempt_time'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('webhook_delivery', 'ix_webhook_delivery_endpoint_due');
  }
}
