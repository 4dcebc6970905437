import { PassJobRow } from '@app/passes';
import { Column, Entity } from 'typeorm';

export type PushJobState = 'pending' | 'processing' | 'done' | 'superseded' | 'failed';

/**
 * "Tell every device holding this pass (or these holders' copies of it) that it changed": written in the same transaction as
 * the change, claimed by one worker under a lease, resumable after a crash.
 */
@Entity({ name: 'wallet_a_push_job' })
export class PushJob extends PassJobRow {
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
}
