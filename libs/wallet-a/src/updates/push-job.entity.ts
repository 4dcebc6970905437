import { LeasedRow } from '@app/core';
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type PushJobState = 'pending' | 'processing' | 'done' | 'superseded';

/**
 * "Tell every device holding this pass that it changed": written in the same transaction as
 * the change, claimed by one worker under a lease, resumable after a crash.
 */
@Entity({ name: 'wallet_a_push_job' })
export class PushJob extends LeasedRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'pass_version', type: 'int' })
  passVersion!: number;

  @Column({ type: 'varchar', length: 16 })
  state!: PushJobState;

  @Column({ name: 'last_registration_id', type: 'varchar', length: 36, nullable: true })
  lastRegistrationId!: string | null;

  @Column({ name: 'pushed_count', type: 'int', default: 0 })
  pushedCount!: number;

  @Column({ name: 'unregistered_count', type: 'int', default: 0 })
  unregisteredCount!: number;

  @Column({ name: 'failed_count', type: 'int', default: 0 })
  failedCount!: number;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  @Column({ name: 'finished_time', type: 'datetime', precision: 3, nullable: true })
  finishedTime!: Date | null;
}
