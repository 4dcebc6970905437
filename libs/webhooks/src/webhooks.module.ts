import { RetentionWorker } from '@app/core';
import { WalletAModule } from '@app/wallet-a';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { WebhookOutbox } from './delivery/webhook-outbox';
import { WebhookSender } from './delivery/webhook-sender';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Signed webhooks: the endpoints API, the outbox that turns recorded service
 * events into deliveries in the causing transaction, and the delivery worker. Imported by the
 * API (routes, recording) and the worker process (recording, delivering).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery]),
    // SecretSealer: the secrets are sealed like WalletA authentication tokens.
    WalletAModule,
  ],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookSender, WebhookDeliveryWorker, WebhookOutbox],
  exports: [WebhooksService],
})
export class WebhooksModule {
  constructor(retention: RetentionWorker) {
    retention.register({
      table: 'webhook_delivery',
      key: 'id',
      expired: ({ cutoff }) => ({
        where: "status IN ('Delivered', 'Failed') AND finished_time < ?",
        parameters: [cutoff],
      }),
    });
    // Deliveries of a deleted endpoint, whatever their status and age: deleting an endpoint
    // removes its row only (one row however long its history), and the worker never claims a
    // delivery without its endpoint; here they go in bounded batches. The anti-join probes
    // ix_webhook_delivery_endpoint, and the batch's LIMIT ends the scan once it is full.
    retention.register({
      table: 'webhook_delivery',
      key: 'id',
      expired: () => ({
        where:
          'NOT EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.id = webhook_delivery.endpoint_id)',
        parameters: [],
      }),
    });
  }
}
