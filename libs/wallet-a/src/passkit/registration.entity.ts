import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A device registered for updates of a pass through Apple's PassKit web service. */
@Entity({ name: 'wallet_a_registration' })
export class Registration {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** The holder whose personal pass the device registered; null: the shared pass. */
  @Column({ name: 'holder_id', type: 'varchar', length: 36, nullable: true })
  holderId!: string | null;

  /** The serial number registered: the pass id, or the holder's serial number. */
  @Column({ name: 'serial_number', type: 'varchar', length: 64 })
  serialNumber!: string;

  @Column({ name: 'device_library_id', type: 'varchar', length: 255 })
  deviceLibraryId!: string;

  @Column({ name: 'push_token', type: 'varchar', length: 255 })
  pushToken!: string;

  /**
   * Where a shared-pass registration came from (`registrationSource`): one source keeps a
   * bounded number. Null for a holder's copy, bounded per holder instead.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  source!: string | null;

  /** The pass version of the package the device held when it registered. */
  @Column({ name: 'held_pass_version', type: 'int', default: 0 })
  heldPassVersion!: number;

  /** The holder version of that package (0 for the shared pass). */
  @Column({ name: 'held_holder_version', type: 'int', default: 0 })
  heldHolderVersion!: number;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  @Column({ name: 'removed_time', type: 'datetime', precision: 3, nullable: true })
  removedTime!: Date | null;
}
