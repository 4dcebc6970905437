import { PassJobRow } from '@app/passes';
import { Column, Entity } from 'typeorm';

export type SyncJobState = 'pending' | 'processing' | 'done' | 'superseded' | 'failed';

/**
 * "Bring this pass's Google class (and its holders' objects) up to date": written in the
 * transaction of the pass change, claimed by one worker under a lease, retried with backoff
 * when Google fails, resumable after a crash.
 */
@Entity({ name: 'wallet_b_sync_job' })
export class SyncJob extends PassJobRow {
  @Column({ type: 'varchar', length: 16 })
  state!: SyncJobState;

  @Column({ name: 'next_attempt_time', type: 'datetime', precision: 3 })
  nextAttemptTime!: Date;

  @Column({ name: 'last_object_id', type: 'varchar', length: 36, nullable: true })
  lastObjectId!: string | null;

  @Column({ name: 'object_hash', type: 'varchar', length: 64, nullable: true })
  objectHash!: string | null;

  @Column({ name: 'last_error', type: 'varchar', length: 1000, nullable: true })
  lastError!: string | null;
}
