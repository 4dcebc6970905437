import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ClassType } from '../google/wallet-objects.types';

/**
 * The class type a pass has on WalletB, fixed when it first needed one (its first sync or save
 * link, once Published): holders' objects are of that type, and a Published pass's kind cannot
 * change. Passes Published before class types existed were given `generic`, the type their
 * classes and objects at Google are.
 */
@Entity({ name: 'wallet_b_class' })
export class WalletBClass {
  @PrimaryColumn({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'class_type', type: 'varchar', length: 16 })
  classType!: ClassType;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;
}
