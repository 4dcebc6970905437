import { WorkspaceOwnedEntity } from '@app/core';
import type { AudienceJson } from '@app/audiences';
import { Column, Entity } from 'typeorm';
import type { AutomationAction, AutomationTrigger } from './automation-rules';

/** A rule of a pass: when its trigger fires for a holder who matches its audience, its actions. */
@Entity({ name: 'automation' })
export class Automation extends WorkspaceOwnedEntity {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** Unique per pass, case-exact. */
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'simple-json' })
  trigger!: AutomationTrigger;

  /** The audience as the client sent it (checked); null: every holder. */
  @Column({ type: 'simple-json', nullable: true })
  audience!: AudienceJson | null;

  @Column({ type: 'simple-json' })
  actions!: AutomationAction[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ name: 'run_count', type: 'int', default: 0 })
  runCount!: number;

  @Column({ name: 'skipped_count', type: 'int', default: 0 })
  skippedCount!: number;

  @Column({ name: 'failed_count', type: 'int', default: 0 })
  failedCount!: number;

  @Column({ name: 'last_run_time', type: 'datetime', precision: 3, nullable: true })
  lastRunTime!: Date | null;
}
