export * from './delivery/destination';
export * from './delivery/signature';
export * from './delivery/webhook-delivery.worker';
export * from './delivery/webhook-outbox';
export * from './delivery/webhook-sender';
export * from './entities/webhook-delivery.entity';
export * from './entities/webhook-endpoint.entity';
export * from './webhook-events';
export * from './webhooks.module';
export * from './webhooks.service';

import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
export const WEBHOOK_ENTITIES = [WebhookEndpoint, WebhookDelivery];
