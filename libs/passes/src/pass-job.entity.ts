import { LeasedRow } from '@app/core';
import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns of a job a holder-visible pass change queues for a wallet (through a
 * {@link HolderChanges} hook, in the change's transaction) and a worker claims under a lease.
 */
export abstract class PassJobRow extends LeasedRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** Only this holder's devices or object (a holder PATCH or void); null: see `holdersSince`. */
  @Column({ name: 'holder_id', type: 'varchar', length: 36, nullable: true })
  holderId!: string | null;

  /** Only holders changed at or after this time (an import); both null: the whole pass. */
  @Column({ name: 'holders_since', type: 'datetime', precision: 3, nullable: true })
  holdersSince!: Date | null;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  @Column({ name: 'finished_time', type: 'datetime', precision: 3, nullable: true })
  finishedTime!: Date | null;
}
