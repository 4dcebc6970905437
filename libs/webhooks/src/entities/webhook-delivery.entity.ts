import { LeasedRow } from '@app/core';
import { Column, Entity, PrimaryColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['Pending', 'Delivered', 'Failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one endpoint: the transactional outbox. Written in the transaction of the change
 * that caused the event, with its body frozen (the bytes every attempt sends and signs), then
 * claimed by delivery workers under a lease (`attempts` counts the claims) until an endpoint
 * answers 2xx (`Delivered`) or the retry window closes (`Failed`).
 */
@Entity({ name: 'webhook_delivery' })
export class WebhookDelivery extends LeasedRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'endpoint_id', type: 'varchar', length: 36 })
  endpointId!: string;

  /** The body's `id` and the `webhook-id` header: the same on every retry and endpoint. */
  @Column({ name: 'event_id', type: 'varchar', length: 40 })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType!: string;

  /** The JSON body exactly as sent and signed. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  /** When the next attempt is due (Pending); null once Delivered or Failed. */
  @Column({ name: 'next_attempt_time', type: 'datetime', precision: 3, nullable: true })
  nextAttemptTime!: Date | null;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 255, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  /** When it became Delivered or Failed (what retention deletes by). */
  @Column({ name: 'finished_time', type: 'datetime', precision: 3, nullable: true })
  finishedTime!: Date | null;
}
