import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { WebhookEventType } from '../webhook-events';

/** Where a workspace wants its events sent. */
@Entity({ name: 'webhook_endpoint' })
export class WebhookEndpoint extends WorkspaceOwnedEntity {
  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  /** The event types it is subscribed to. */
  @Column({ type: 'simple-json' })
  events!: WebhookEventType[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** The `whsec_…` signing secret, sealed (SecretSealer): shown once, at creation. */
  @Column({ name: 'secret_sealed', type: 'varchar', length: 255 })
  secretSealed!: string;
}
