import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/** `{PUBLIC_BASE_URL}/l/{slug}` → `targetUrl` (with `utm_source`), one per back-field link. */
@Entity({ name: 'short_link' })
export class ShortLink extends WorkspaceOwnedEntity {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ type: 'varchar', length: 64 })
  slug!: string;

  @Column({ name: 'target_url', type: 'varchar', length: 2048 })
  targetUrl!: string;

  @Column({ name: 'utm_source', type: 'varchar', length: 100, nullable: true })
  utmSource!: string | null;
}
