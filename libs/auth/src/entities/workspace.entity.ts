import { AuditedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

@Entity({ name: 'workspace' })
export class Workspace extends AuditedEntity {
  @Column({ name: 'organisation_id', type: 'varchar', length: 36 })
  organisationId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;
}
