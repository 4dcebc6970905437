import { AuditedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/**
 * An API key. The id is the public part of the key; only a SHA-256 of the secret part is
 * kept, so the key cannot be shown again after creation.
 */
@Entity({ name: 'api_key' })
export class ApiKey extends AuditedEntity {
  @Column({ name: 'organisation_id', type: 'varchar', length: 36 })
  organisationId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash!: string;

  @Column({ name: 'last_used_time', type: 'datetime', precision: 3, nullable: true })
  lastUsedTime!: Date | null;

  @Column({ name: 'revoked_time', type: 'datetime', precision: 3, nullable: true })
  revokedTime!: Date | null;
}
