import { Column, PrimaryColumn } from 'typeorm';
import { newId } from '../ids/ids';

/**
 * Columns shared by the spec's "common entity fields". Times are set by the code that
 * creates or changes a record (see {@link stampCreated}), not by database defaults, so both
 * dialects store the same millisecond values and `createdBy`/`updatedBy` come from the caller.
 */
export abstract class AuditedEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;

  @Column({ name: 'created_by', type: 'varchar', length: 36, nullable: true })
  createdBy!: string | null;

  @Column({ name: 'updated_by', type: 'varchar', length: 36, nullable: true })
  updatedBy!: string | null;
}

/** A record that lives inside one workspace: every query on it names the workspace. */
export abstract class WorkspaceOwnedEntity extends AuditedEntity {
  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;
}

/** Fills id, times and authorship on a record about to be inserted. */
export function stampCreated<T extends AuditedEntity>(entity: T, actorId: string | null): T {
  const now = new Date();
  entity.id ??= newId();
  entity.createdTime = now;
  entity.updatedTime = now;
  entity.createdBy = actorId;
  entity.updatedBy = actorId;
  return entity;
}

/** Moves `updatedTime`/`updatedBy` on for a change made by `actorId`. */
export function stampUpdated<T extends AuditedEntity>(entity: T, actorId: string | null): T {
  entity.updatedTime = new Date();
  entity.updatedBy = actorId;
  return entity;
}
