import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's assignment to a workspace; the earliest one is their default workspace. */
@Entity({ name: 'workspace_membership' })
export class WorkspaceMembership {
  @PrimaryColumn({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId!: string;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'created_by', type: 'varchar', length: 36, nullable: true })
  createdBy!: string | null;
}
