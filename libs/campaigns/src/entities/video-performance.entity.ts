import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { Platform } from './columns';

/** `api`: posted as JSON, kept until deleted. `file`: read from a campaign's CSV file(s). */
export const RECORD_SOURCES = ['api', 'file'] as const;
export type RecordSource = (typeof RECORD_SOURCES)[number];

/** One video's performance in a campaign (spec: VideoPerformance record). */
@Entity({ name: 'video_performance' })
export class VideoPerformance extends WorkspaceOwnedEntity {
  @Column({ name: 'campaign_id', type: 'varchar', length: 36 })
  campaignId!: string;

  @Column({ type: 'varchar', length: 8 })
  source!: RecordSource;

  @Column({ type: 'varchar', length: 16 })
  platform!: Platform;

  @Column({ name: 'video_url', type: 'varchar', length: 2048 })
  videoURL!: string;

  @Column({ name: 'creator_handle', type: 'varchar', length: 255 })
  creatorHandle!: string;

  /**
   * The handle as totalCreators counts it (see creatorKey): compared byte for byte on both
   * dialects (binary collation on MySQL).
   */
  @Column({ name: 'creator_key', type: 'varchar', length: 255 })
  creatorKey!: string;

  @Column({ type: 'int', default: 0 }) views!: number;
  @Column({ type: 'int', default: 0 }) likes!: number;
  @Column({ type: 'int', default: 0 }) shares!: number;
  @Column({ type: 'int', default: 0 }) comments!: number;
  @Column({ type: 'int', default: 0 }) saves!: number;

  @Column({ name: 'date_posted', type: 'date', nullable: true, utc: true })
  datePosted!: string | null;
}

/**
 * Handles name the same creator whatever their case or a leading `@` (`@Alice` = `alice`),
 * as on the social platforms themselves.
 */
export function creatorKey(handle: string): string {
  return handle.trim().replace(/^@/, '').toLowerCase().slice(0, 255);
}
