import { Leased, WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { AudienceJson } from '../audience';
import type { BulkChanges } from './bulk-changes';

export const BULK_CHANGE_STATUSES = ['Pending', 'Running', 'Done', 'Failed'] as const;
export type BulkChangeStatus = (typeof BULK_CHANGE_STATUSES)[number];

/** A worker holds a bulk change in these; Done and Failed are final. */
export const ACTIVE_BULK_CHANGE_STATUSES: readonly BulkChangeStatus[] = ['Pending', 'Running'];
export const FINAL_BULK_CHANGE_STATUSES: readonly BulkChangeStatus[] = ['Done', 'Failed'];

/**
 * One change of many holders of a pass (docs/decisions.md, "Bulk changes"), worked through by
 * `HolderBulkChangeWorker` in batches under a lease. Its holders are snapshotted into
 * `audience_member` (snapshot_id = this id) when it starts, so a resumed worker goes on with the
 * same holders; `cursor` is the last holder id of the last committed batch.
 */
@Entity({ name: 'holder_bulk_change' })
export class HolderBulkChange extends Leased(WorkspaceOwnedEntity) {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: BulkChangeStatus;

  /** The target: a segment of the pass (its audience as it is when the change starts), ... */
  @Column({ name: 'segment_id', type: 'varchar', length: 36, nullable: true })
  segmentId!: string | null;

  /** ... an audience, as sent (checked), ... */
  @Column({ type: 'simple-json', nullable: true })
  audience!: AudienceJson | null;

  /** ... or holders chosen by id (each a holder of the pass when the change was made). */
  @Column({ name: 'holder_ids', type: 'simple-json', nullable: true })
  holderIds!: string[] | null;

  /** What each holder gets, as checked when the change was made. */
  @Column({ type: 'simple-json' })
  changes!: BulkChanges;

  /** Holders the target matched when the change started; null until then. */
  @Column({ type: 'int', nullable: true })
  matched!: number | null;

  /** Holders the change changed. */
  @Column({ type: 'int', default: 0 })
  updated!: number;

  /**
   * Holders left alone: Voided, a value to increment that is not a number or whose sum has no
   * decimal text (more than 30 digits before or after the point), too many tags or attributes.
   * Which of these is not kept per holder.
   */
  @Column({ type: 'int', default: 0 })
  skipped!: number;

  /**
   * The snapshot of the target's holders is written in batches in id order, each committed with
   * this checkpoint (the last holder id written); null: none yet. A segment's audience as the
   * first batch read it is kept in `audience` for the rest.
   */
  @Column({ name: 'snapshot_cursor', type: 'varchar', length: 36, nullable: true })
  snapshotCursor!: string | null;

  /** The last holder id of the last batch committed; null: none yet. */
  @Column({ type: 'varchar', length: 36, nullable: true })
  cursor!: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;

  @Column({ name: 'finished_time', type: 'datetime', precision: 3, nullable: true })
  finishedTime!: Date | null;
}
