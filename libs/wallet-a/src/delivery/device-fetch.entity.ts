import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Devices that fetched one version of a pass (or of a holder's copy) from the web service, by
 * how long after the version was made: the evidence that an update reached the phones
 * (docs/decisions.md, "Delivery confirmation"). Counted in memory and added here in batches
 * (`FetchConfirmations`); one row per (serial number, version, seconds bucket).
 */
@Entity({ name: 'wallet_a_fetch' })
export class DeviceFetch {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'holder_id', type: 'varchar', length: 36, nullable: true })
  holderId!: string | null;

  @Column({ name: 'serial_number', type: 'varchar', length: 64 })
  serialNumber!: string;

  @Column({ name: 'pass_version', type: 'int' })
  passVersion!: number;

  /** The holder's version for a personal copy; 0 for the shared pass. */
  @Column({ name: 'holder_version', type: 'int' })
  holderVersion!: number;

  /** When the version was made: the later of the pass's and the holder's change. */
  @Column({ name: 'version_time', type: 'datetime', precision: 3 })
  versionTime!: Date;

  /** Index into `CONFIRMATION_BUCKETS`: how many seconds after `versionTime` they fetched. */
  @Column({ name: 'seconds_bucket', type: 'int' })
  secondsBucket!: number;

  @Column({ type: 'int' })
  fetches!: number;
}
