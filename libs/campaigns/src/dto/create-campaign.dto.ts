import { ID_PATTERN, NestedObject, NotEmpty, ReadOnly, Required, ID_MESSAGE } from '@app/core';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsCalendarDate } from '../calendar-date';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../campaign-status';
import { CAMPAIGN_TYPES, type CampaignType } from '../entities/campaign.entity';
import { PLATFORMS, type Platform } from '../entities/columns';
import { URL_MESSAGE, URL_OPTIONS } from './video-performance.dto';

/**
 * A field that may be left out but not sent as `null` (it has no "unset" state): absent skips
 * every check, `null` fails with `must not be null`.
 */
const NotNullWhenSent = () =>
  applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    Required(),
  );

const ViewCount = (description: string, example: number) =>
  applyDecorators(
    ApiPropertyOptional({
      description,
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      nullable: true,
      type: Number,
      example,
    }),
    IsOptional(),
    IsInt(),
    Min(0),
    Max(Number.MAX_SAFE_INTEGER),
  );

/** `{ fileKey }`: an upload of this workspace. `fileName` and `url` are read-only. */
export class FileRefDto {
  @ApiProperty({
    description: 'The uploadKey from POST /v1/uploads/storage',
    example: '0193a5e1-0c2d-7e3f-8a4b-5c6d7e8f9a0b',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  fileKey!: string;

  @ReadOnly() fileName?: unknown;
  @ReadOnly() url?: unknown;
}

const Note = (description: string, example?: string) =>
  applyDecorators(
    ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, description, example }),
    IsOptional(),
    IsString(),
    MaxLength(2000),
  );

/**
 * The writable part of CampaignData. Its totals are derived from the video-performance
 * records: sent back, they are ignored like every other read-only field.
 */
export class CampaignDataInputDto {
  @Note('Link to the folder with the campaign’s assets', 'https://drive.example/f/spring')
  assetFolderLink?: string | null;
  @Note('Free text (the spec gives rec1–rec4 no meaning)') rec1?: string | null;
  @Note('Free text') rec2?: string | null;
  @Note('Free text') rec3?: string | null;
  @Note('Free text') rec4?: string | null;

  @ReadOnly() id?: unknown;
  @ReadOnly() campaignId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
  @ReadOnly() totalViews?: unknown;
  @ReadOnly() totalClicks?: unknown;
  @ReadOnly() totalLikes?: unknown;
  @ReadOnly() totalCreators?: unknown;
  @ReadOnly() totalComments?: unknown;
  @ReadOnly() totalShares?: unknown;
  @ReadOnly() totalVideos?: unknown;
  @ReadOnly() socialAViews?: unknown;
  @ReadOnly() socialALikes?: unknown;
  @ReadOnly() socialAShares?: unknown;
  @ReadOnly() socialAComments?: unknown;
  @ReadOnly() socialBViews?: unknown;
  @ReadOnly() socialBLikes?: unknown;
  @ReadOnly() socialBShares?: unknown;
  @ReadOnly() socialBComments?: unknown;
}

const FileField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: FileRefDto, nullable: true, description }),
    IsOptional(),
    NestedObject(() => FileRefDto),
  );

/**
 * Every campaign field but `name`, shared by create and update. Nullable fields take `null`
 * to clear them; the others (type, status, isPublished, platforms) may be left out but not
 * sent as `null`.
 */
export class CampaignFieldsDto {
  @ReadOnly() id?: unknown;
  @ReadOnly() accountId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;

  @ApiPropertyOptional({ enum: CAMPAIGN_TYPES, default: 'BoostedPost' })
  @NotNullWhenSent()
  @IsIn(CAMPAIGN_TYPES)
  type?: CampaignType;

  @ApiPropertyOptional({
    enum: CAMPAIGN_STATUSES,
    default: 'NotStarted',
    description:
      'Moves: NotStarted→Prepping|InProgress|Canceled, Prepping→InProgress|Canceled, ' +
      'InProgress→Paused|Completed|Canceled, Paused→InProgress|Canceled. Completed and ' +
      'Canceled are final. Another move is a 409.',
  })
  @NotNullWhenSent()
  @IsIn(CAMPAIGN_STATUSES)
  status?: CampaignStatus;

  @ApiPropertyOptional({ format: 'date', nullable: true, type: String, example: '2026-03-01' })
  @IsOptional()
  @IsCalendarDate()
  startDate?: string | null;

  @ApiPropertyOptional({
    format: 'date',
    nullable: true,
    type: String,
    example: '2026-03-31',
    description: 'Not before startDate',
  })
  @IsOptional()
  @IsCalendarDate()
  endDate?: string | null;

  @ApiPropertyOptional({ default: false, description: 'Branded users see published ones only' })
  @NotNullWhenSent()
  @IsBoolean()
  isPublished?: boolean;

  @ApiPropertyOptional({ enum: PLATFORMS, isArray: true, example: ['SocialA', 'SocialB'] })
  @NotNullWhenSent()
  @IsArray()
  @ArrayMaxSize(PLATFORMS.length)
  @IsIn(PLATFORMS, { each: true })
  @ArrayUnique({ message: 'must not name a platform twice' })
  platforms?: Platform[];

  @ViewCount('Views the campaign aims for', 500000) targetViews?: number | null;
  @ViewCount('Views of the content before the campaign', 1200) beforeViews?: number | null;
  @ViewCount('Views of the content after the campaign', 48000) afterViews?: number | null;
  @ViewCount('Views the campaign delivered', 250000) deliveredViews?: number | null;

  @ApiPropertyOptional({
    maxLength: 2048,
    nullable: true,
    type: String,
    example: 'https://brand.example/spring',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  contentLink?: string | null;

  @ApiPropertyOptional({ maxLength: 5000, nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  submissionNotes?: string | null;

  @FileField('An image upload (PNG, JPEG, GIF or WebP)') beforeImage?: FileRefDto | null;
  @FileField('An image upload (PNG, JPEG, GIF or WebP)') afterImage?: FileRefDto | null;
  @FileField(
    'A CSV upload of video-performance records. Setting it (again) replaces the records read ' +
      'from files; null removes them.',
  )
  campaignDataFileInfo?: FileRefDto | null;
  @FileField(
    'A CSV upload of video-performance records (header platform,videoURL,creatorHandle,views,' +
      'likes,shares,comments,saves,datePosted in any order; at most 1000 rows). Setting it ' +
      '(again) replaces the records read from files; null removes them.',
  )
  videoPerformanceFileInfo?: FileRefDto | null;

  @ApiPropertyOptional({
    type: CampaignDataInputDto,
    description:
      'Only assetFolderLink and rec1–rec4 are written; the totals are derived from the records.',
  })
  @NotNullWhenSent()
  @NestedObject(() => CampaignDataInputDto)
  campaignData?: CampaignDataInputDto;
}

export class CreateCampaignDto extends CampaignFieldsDto {
  @ApiProperty({ maxLength: 255, example: 'Spring ride launch' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;
}

/** PATCH: any subset of the create fields. */
export class UpdateCampaignDto extends CampaignFieldsDto {
  @ApiPropertyOptional({ maxLength: 255, example: 'Spring ride launch' })
  @NotNullWhenSent()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name?: string;
}
