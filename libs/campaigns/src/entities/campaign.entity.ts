import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { CampaignStatus } from '../campaign-status';
import { BIGINT_AS_NUMBER, type Platform } from './columns';

export const CAMPAIGN_TYPES = ['BoostedPost', 'SyndicatedContent'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

/** The four FileInfo fields of a campaign; each column holds an `uploadKey` (or null). */
export const CAMPAIGN_FILE_FIELDS = [
  'beforeImage',
  'afterImage',
  'campaignDataFileInfo',
  'videoPerformanceFileInfo',
] as const;
export type CampaignFileField = (typeof CAMPAIGN_FILE_FIELDS)[number];

/** The file fields whose CSV files hold video-performance records. */
export const RECORD_FILE_FIELDS = ['videoPerformanceFileInfo', 'campaignDataFileInfo'] as const;
export const IMAGE_FILE_FIELDS = ['beforeImage', 'afterImage'] as const;

/** A promotional video campaign. Its derived totals live in `campaign_data`, one row each. */
@Entity({ name: 'campaign' })
export class Campaign extends WorkspaceOwnedEntity {
  @Column({ name: 'account_id', type: 'varchar', length: 36 })
  accountId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** `name` lower-cased in JavaScript, for the case-insensitive keyword search on both dialects. */
  @Column({ name: 'name_key', type: 'varchar', length: 510 })
  nameKey!: string;

  @Column({ type: 'varchar', length: 32 })
  type!: CampaignType;

  @Column({ type: 'varchar', length: 16 })
  status!: CampaignStatus;

  /** `YYYY-MM-DD`; `utc` keeps MySQL's DATE from shifting with the process time zone. */
  @Column({ name: 'start_date', type: 'date', nullable: true, utc: true })
  startDate!: string | null;

  @Column({ name: 'end_date', type: 'date', nullable: true, utc: true })
  endDate!: string | null;

  @Column({ name: 'is_published', type: 'boolean', default: false })
  isPublished!: boolean;

  @Column({ type: 'simple-json' })
  platforms!: Platform[];

  @Column({ name: 'target_views', type: 'bigint', nullable: true, transformer: BIGINT_AS_NUMBER })
  targetViews!: number | null;

  @Column({ name: 'before_views', type: 'bigint', nullable: true, transformer: BIGINT_AS_NUMBER })
  beforeViews!: number | null;

  @Column({ name: 'after_views', type: 'bigint', nullable: true, transformer: BIGINT_AS_NUMBER })
  afterViews!: number | null;

  @Column({
    name: 'delivered_views',
    type: 'bigint',
    nullable: true,
    transformer: BIGINT_AS_NUMBER,
  })
  deliveredViews!: number | null;

  @Column({ name: 'content_link', type: 'varchar', length: 2048, nullable: true })
  contentLink!: string | null;

  @Column({ name: 'submission_notes', type: 'text', nullable: true })
  submissionNotes!: string | null;

  @Column({ name: 'before_image_key', type: 'varchar', length: 36, nullable: true })
  beforeImage!: string | null;

  @Column({ name: 'after_image_key', type: 'varchar', length: 36, nullable: true })
  afterImage!: string | null;

  @Column({ name: 'campaign_data_file_key', type: 'varchar', length: 36, nullable: true })
  campaignDataFileInfo!: string | null;

  @Column({ name: 'video_performance_file_key', type: 'varchar', length: 36, nullable: true })
  videoPerformanceFileInfo!: string | null;
}
