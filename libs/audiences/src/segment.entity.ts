import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { AudienceJson } from './audience';

/** A named audience of a pass: evaluated whenever it is used, never stored. */
@Entity({ name: 'segment' })
export class Segment extends WorkspaceOwnedEntity {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** Unique per pass, case-exact. */
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** The audience as the client sent it (checked). */
  @Column({ type: 'simple-json' })
  audience!: AudienceJson;
}
