import { ApiProperty } from '@nestjs/swagger';
import type { WebhookEndpoint } from '../entities/webhook-endpoint.entity';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type WebhookDelivery,
} from '../entities/webhook-delivery.entity';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-events';

export class WebhookResponse {
  @ApiProperty({ example: '019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
  @ApiProperty({ example: 'https://crm.brand.example/hooks/wallet' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['holder.created'] })
  events!: WebhookEventType[];
  @ApiProperty({ nullable: true, type: String, example: 'CRM sync' })
  description!: string | null;
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    description:
      'The signing secret (Standard Webhooks), in this response only: it cannot be read again.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3lR8VMW6BVk=',
  })
  secret!: string;
}

export class WebhookPage {
  @ApiProperty({ type: [WebhookResponse] }) items!: WebhookResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
  @ApiProperty({
    example: 'msg_019a2b3c55557f608a1b2c3d4e5f6a7b',
    description: 'The body `id` and `webhook-id` header, the same on every attempt.',
  })
  eventId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, example: 'holder.updated' })
  eventType!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'Pending' }) status!: DeliveryStatus;
  @ApiProperty({ example: 2, description: 'Attempts made so far' }) attempts!: number;
  @ApiProperty({ nullable: true, type: Number, example: 503 }) lastStatusCode!: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'HTTP 503' }) lastError!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'When it is tried next (Pending only)',
  })
  nextAttemptTime!: string | null;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
}

export class WebhookDeliveryPage {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) items!: WebhookDeliveryResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export function toWebhookResponse(endpoint: WebhookEndpoint): WebhookResponse {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    workspaceId: endpoint.workspaceId,
    createdTime: endpoint.createdTime.toISOString(),
    updatedTime: endpoint.updatedTime.toISOString(),
    createdBy: endpoint.createdBy,
    updatedBy: endpoint.updatedBy,
  };
}

export function toWebhookDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponse {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    nextAttemptTime: delivery.nextAttemptTime?.toISOString() ?? null,
    createdTime: delivery.createdTime.toISOString(),
  };
}
