import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/**
 * Several holders of one pass handed over together: one `.pkpasses` download,
 * one grouped WalletB save link and one page of them all, behind one unguessable token. What a
 * bundle serves is read at each request from its holders as they are then: a holder Voided
 * since is left out (docs/decisions.md, "Bundles of holders").
 */
@Entity({ name: 'holder_bundle' })
export class HolderBundle extends WorkspaceOwnedEntity {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** The unguessable part of the bundle's links (`/p/{slug}/b/{bundleToken}`). */
  @Column({ name: 'bundle_token', type: 'varchar', length: 64 })
  bundleToken!: string;

  /** The holders, in the order their passes are shown and added. */
  @Column({ name: 'holder_ids', type: 'simple-json' })
  holderIds!: string[];
}
