import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/** The brand account passes are issued under; each workspace has one default account. */
@Entity({ name: 'account' })
export class Account extends WorkspaceOwnedEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault!: boolean;
}
