import { AuditedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

@Entity({ name: 'organisation' })
export class Organisation extends AuditedEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;
}
