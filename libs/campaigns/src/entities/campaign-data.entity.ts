import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import { BIGINT_AS_NUMBER } from './columns';

const total = (name: string) =>
  Column({ name, type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER });

/** The totals DERIVED from a campaign's video-performance records. */
export const CAMPAIGN_TOTALS = [
  'totalViews',
  'totalClicks',
  'totalLikes',
  'totalCreators',
  'totalComments',
  'totalShares',
  'totalVideos',
  'socialAViews',
  'socialALikes',
  'socialAShares',
  'socialAComments',
  'socialBViews',
  'socialBLikes',
  'socialBShares',
  'socialBComments',
] as const;
export type CampaignTotal = (typeof CAMPAIGN_TOTALS)[number];
export type CampaignTotals = Record<CampaignTotal, number>;

/** The fields of CampaignData a client writes (through the campaign's `campaignData`). */
export const CAMPAIGN_DATA_NOTES = ['assetFolderLink', 'rec1', 'rec2', 'rec3', 'rec4'] as const;
export type CampaignDataNote = (typeof CAMPAIGN_DATA_NOTES)[number];

export function zeroTotals(): CampaignTotals {
  return Object.fromEntries(CAMPAIGN_TOTALS.map((name) => [name, 0])) as CampaignTotals;
}

/**
 * The spec's CampaignData: one row per campaign, with the common entity fields of its own.
 * The totals are recomputed from all the campaign's records whenever records change, in the
 * same transaction; `assetFolderLink` and `rec1`–`rec4` are free text the client writes.
 */
@Entity({ name: 'campaign_data' })
export class CampaignData extends WorkspaceOwnedEntity implements CampaignTotals {
  @Column({ name: 'campaign_id', type: 'varchar', length: 36 })
  campaignId!: string;

  @total('total_views') totalViews!: number;
  /** Campaigns have no click source (no short links): always 0. */
  @total('total_clicks') totalClicks!: number;
  @total('total_likes') totalLikes!: number;
  @total('total_creators') totalCreators!: number;
  @total('total_comments') totalComments!: number;
  @total('total_shares') totalShares!: number;
  @total('total_videos') totalVideos!: number;
  @total('social_a_views') socialAViews!: number;
  @total('social_a_likes') socialALikes!: number;
  @total('social_a_shares') socialAShares!: number;
  @total('social_a_comments') socialAComments!: number;
  @total('social_b_views') socialBViews!: number;
  @total('social_b_likes') socialBLikes!: number;
  @total('social_b_shares') socialBShares!: number;
  @total('social_b_comments') socialBComments!: number;

  @Column({ name: 'asset_folder_link', type: 'varchar', length: 2048, nullable: true })
  assetFolderLink!: string | null;

  @Column({ type: 'text', nullable: true }) rec1!: string | null;
  @Column({ type: 'text', nullable: true }) rec2!: string | null;
  @Column({ type: 'text', nullable: true }) rec3!: string | null;
  @Column({ type: 'text', nullable: true }) rec4!: string | null;
}
