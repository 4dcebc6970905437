import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/** A place near which a pass shows `relevantText` on the lock screen (WalletA `locations`). */
@Entity({ name: 'pass_location' })
export class PassLocation extends WorkspaceOwnedEntity {
  /** The pass this location belongs to; null for a location not attached to any pass yet. */
  @Column({ name: 'pass_id', type: 'varchar', length: 36, nullable: true })
  passId!: string | null;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** Degrees, −90..90. */
  @Column({ type: 'double' })
  latitude!: number;

  /** Degrees, −180..180. */
  @Column({ type: 'double' })
  longitude!: number;

  /** Metres. */
  @Column({ type: 'double', nullable: true })
  altitude!: number | null;

  @Column({ name: 'relevant_text', type: 'varchar', length: 255 })
  relevantText!: string;

  /** Only enabled locations go into the pass, at most 10 of them per pass. */
  @Column({ type: 'boolean', default: true })
  enabled!: boolean;
}
