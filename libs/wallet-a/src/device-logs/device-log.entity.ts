import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A message Wallet on a device posted to the PassKit web service's `/log`, kept under the pass
 * (and holder) whose serial number it names. The same message for the same serial number is
 * one row, counted, or two: the posts tied to a device and the others.
 */
@Entity({ name: 'wallet_a_device_log' })
export class DeviceLog {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** The holder whose serial number the message names; null: the shared pass's. */
  @Column({ name: 'holder_id', type: 'varchar', length: 36, nullable: true })
  holderId!: string | null;

  /** The serial number the message names: the pass id, or the holder's serial number. */
  @Column({ name: 'serial_number', type: 'varchar', length: 64 })
  serialNumber!: string;

  /** As Wallet sent it, but for its leading timestamp; at most 2,000 characters. */
  @Column({ type: 'text' })
  message!: string;

  /** SHA-256 (hex) of `message`: with pass, serial number and `verified`, the row's key. */
  @Column({ name: 'message_hash', type: 'varchar', length: 64 })
  messageHash!: string;

  /**
   * Posted from an address that had just sent the serial number's token to the web service
   * (`AuthenticatedDevices`); false: by anyone who knows the serial number.
   */
  @Column({ type: 'boolean', default: false })
  verified!: boolean;

  /** How many times it was posted. */
  @Column({ type: 'int', default: 0 })
  count!: number;

  @Column({ name: 'first_time', type: 'datetime', precision: 3 })
  firstTime!: Date;

  @Column({ name: 'last_time', type: 'datetime', precision: 3 })
  lastTime!: Date;
}
