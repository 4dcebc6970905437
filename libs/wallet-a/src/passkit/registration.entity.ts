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

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  @Column({ name: 'removed_time', type: 'datetime', precision: 3, nullable: true })
  removedTime!: Date | null;
}
