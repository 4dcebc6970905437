import { flattenValidationErrors, NotEmpty, plainToDto, ReadOnly, Required } from '@app/core';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  validateSync,
} from 'class-validator';
import { IsCalendarDate } from '../calendar-date';
import { PLATFORMS, type Platform } from '../entities/columns';
import {
  RECORD_SOURCES,
  type RecordSource,
  type VideoPerformance,
} from '../entities/video-performance.entity';
import { CampaignDataResponse, times } from './campaign.response';

export const URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
};
export const URL_MESSAGE = 'must be an http(s) URL';
/** Per-video counts are `int` columns. */
export const MAX_VIDEO_COUNT = 2_147_483_647;
/** At most this many records in one JSON import or one CSV file. */
export const MAX_IMPORT_RECORDS = 1000;

/** The record fields, in the order of the CSV header the service documents. */
export const VIDEO_PERFORMANCE_FIELDS = [
  'platform',
  'videoURL',
  'creatorHandle',
  'views',
  'likes',
  'shares',
  'comments',
  'saves',
  'datePosted',
] as const;
export type VideoPerformanceField = (typeof VIDEO_PERFORMANCE_FIELDS)[number];
export const VIDEO_PERFORMANCE_COUNTS = ['views', 'likes', 'shares', 'comments', 'saves'] as const;
export const REQUIRED_VIDEO_PERFORMANCE_FIELDS: readonly VideoPerformanceField[] = [
  'platform',
  'videoURL',
  'creatorHandle',
];

const Count = (example: number) =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 0, maximum: MAX_VIDEO_COUNT, default: 0, example }),
    IsOptional(),
    IsInt(),
    Min(0),
    Max(MAX_VIDEO_COUNT),
  );

/** One record as a client sends it, in a JSON array or as a CSV line. */
export class VideoPerformanceInputDto {
  @ReadOnly() id?: unknown;
  @ReadOnly() campaignId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() source?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;

  @ApiProperty({ enum: PLATFORMS, example: 'SocialA' })
  @Required()
  @IsIn(PLATFORMS)
  platform!: Platform;

  @ApiProperty({ maxLength: 2048, example: 'https://socialA.example/v/8f3k2' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  videoURL!: string;

  @ApiProperty({ maxLength: 255, example: '@ridewithmaya' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  creatorHandle!: string;

  @Count(125000) views?: number;
  @Count(8300) likes?: number;
  @Count(410) shares?: number;
  @Count(260) comments?: number;
  @Count(95) saves?: number;

  @ApiPropertyOptional({ format: 'date', example: '2026-03-14', nullable: true, type: String })
  @IsOptional()
  @IsCalendarDate()
  datePosted?: string | null;
}

/**
 * Validates one plain record as the global pipe would (unknown fields refused) and returns the
 * DTO, or the failures keyed `<prefix>.<field>` (`[3].views`, `videoPerformanceFileInfo.line 7.views`).
 */
export function validateVideoPerformance(
  plain: unknown,
  prefix: string,
): { record: VideoPerformanceInputDto; errors?: undefined } | { errors: Record<string, string> } {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { errors: { [prefix]: 'must be an object' } };
  }
  const record = plainToDto(VideoPerformanceInputDto, plain);
  const errors = validateSync(record, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) return { errors: flattenValidationErrors(errors, prefix) };
  return { record };
}

export class VideoPerformanceResponse {
  @ApiProperty({ example: '0193a5e0-8c11-7d2a-9f00-5b1e2c3d4e5f' }) id!: string;
  @ApiProperty({ example: '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b' }) campaignId!: string;
  @ApiProperty({ enum: PLATFORMS, example: 'SocialA' }) platform!: Platform;
  @ApiProperty({ example: 'https://socialA.example/v/8f3k2' }) videoURL!: string;
  @ApiProperty({ example: '@ridewithmaya' }) creatorHandle!: string;
  @ApiProperty({ example: 125000 }) views!: number;
  @ApiProperty({ example: 8300 }) likes!: number;
  @ApiProperty({ example: 410 }) shares!: number;
  @ApiProperty({ example: 260 }) comments!: number;
  @ApiProperty({ example: 95 }) saves!: number;
  @ApiProperty({ format: 'date', nullable: true, type: String, example: '2026-03-14' })
  datePosted!: string | null;
  @ApiProperty({
    enum: RECORD_SOURCES,
    description:
      '`api`: posted as JSON. `file`: read from the campaign’s CSV file, replaced when the file is set again.',
  })
  source!: RecordSource;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class VideoPerformancePage {
  @ApiProperty({ type: [VideoPerformanceResponse] }) items!: VideoPerformanceResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export class VideoPerformanceImportResponse {
  @ApiProperty({ description: 'Records added', example: 3 }) imported!: number;
  @ApiProperty({ type: CampaignDataResponse, description: 'The recomputed totals' })
  campaignData!: CampaignDataResponse;
}

export function toVideoPerformanceResponse(record: VideoPerformance): VideoPerformanceResponse {
  return {
    id: record.id,
    campaignId: record.campaignId,
    platform: record.platform,
    videoURL: record.videoURL,
    creatorHandle: record.creatorHandle,
    views: record.views,
    likes: record.likes,
    shares: record.shares,
    comments: record.comments,
    saves: record.saves,
    datePosted: record.datePosted,
    source: record.source,
    ...times(record),
  };
}
