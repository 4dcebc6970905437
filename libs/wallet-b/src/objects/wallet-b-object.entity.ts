import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A holder's Google Wallet object of a pass, known from Google's save callback. Active while
 * `deletedTime` is null; issued once, whatever happens to it later.
 */
@Entity({ name: 'wallet_b_object' })
export class WalletBObject {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Google's object id: `<issuer id>.<pass id>-<random>`, a holder's `<issuer id>.<serial>`. */
  @Column({ name: 'object_id', type: 'varchar', length: 255 })
  objectId!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** The personal holder whose own object this is; null for an object of the shared pass. */
  @Column({ name: 'holder_id', type: 'varchar', length: 36, nullable: true })
  holderId!: string | null;

  /** The latest save (a holder may delete the pass and save it again). */
  @Column({ name: 'saved_time', type: 'datetime', precision: 3 })
  savedTime!: Date;

  @Column({ name: 'deleted_time', type: 'datetime', precision: 3, nullable: true })
  deletedTime!: Date | null;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;
}
