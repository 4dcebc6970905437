import {
  ID_PATTERN,
  NestedObject,
  NestedObjects,
  NotEmpty,
  ReadOnly,
  Required,
  ID_MESSAGE,
} from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PASS_STATUSES, type PassStatus } from '../entities/pass.entity';
import {
  PASS_IMAGE_NAMES_MAX,
  PassMetadataDto,
  SLUG_PATTERN,
  UploadInfoDto,
} from '../metadata/pass-metadata.dto';

export class AccountRefDto {
  @ApiProperty({ description: 'An account of this workspace (GET /v1/accounts)' })
  @Required()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  id!: string;

  /** The Pass shows the account's name beside its id; sent back, it is ignored. */
  @ReadOnly() name?: unknown;
}

/** Fields of the Pass a client may send back although the service owns them. */
class PassReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() accountId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() downloadUrl?: unknown;
  @ReadOnly() googleSaveUrl?: unknown;
  @ReadOnly() appleIssuedCount?: unknown;
  @ReadOnly() googleIssuedCount?: unknown;
  @ReadOnly() totalIssuedCount?: unknown;
  @ReadOnly() appleActiveCount?: unknown;
  @ReadOnly() googleActiveCount?: unknown;
  @ReadOnly() totalActiveCount?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
  // Written on create only (CreatePassDto checks them there); sent back to PATCH, ignored.
  @ReadOnly() account?: unknown;
  @ReadOnly() slug?: unknown;
}

/** What PATCH takes: the spec's three fields, plus status and images to publish a pass. */
export class UpdatePassDto extends PassReadOnlyFields {
  @ApiProperty({ maxLength: 255, example: 'Summer loyalty card' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  passName!: string;

  @ApiProperty({ type: PassMetadataDto })
  @Required()
  @NestedObject(() => PassMetadataDto)
  passMetadata!: PassMetadataDto;

  @ApiPropertyOptional({
    maxLength: 255,
    nullable: true,
    type: String,
    description: 'WalletA: the label of the notification shown on the lock screen.',
    example: 'Brand news',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  notificationHeader?: string | null;

  @ApiPropertyOptional({
    enum: PASS_STATUSES,
    description:
      '`Published` needs logo.png and icon.png, and strip.png on a store card or coupon and on ' +
      'an event ticket without background.png; it never goes back to `Draft`.',
  })
  @IsOptional()
  @IsIn(PASS_STATUSES)
  status?: PassStatus;

  @ApiPropertyOptional({ type: [UploadInfoDto], maxItems: PASS_IMAGE_NAMES_MAX })
  @IsOptional()
  @ArrayMaxSize(PASS_IMAGE_NAMES_MAX)
  @NestedObjects(() => UploadInfoDto)
  uploadInfoList?: UploadInfoDto[];
}

export class CreatePassDto extends UpdatePassDto {
  @ApiPropertyOptional({
    type: AccountRefDto,
    description: "Absent or null: the workspace's default account.",
  })
  @IsOptional()
  @NestedObject(() => AccountRefDto)
  override account?: AccountRefDto;

  @ApiPropertyOptional({
    description: 'Slug of the pass link `/p/{slug}`; random if absent. Unique.',
    example: 'summer-card',
    pattern: SLUG_PATTERN.source,
  })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be 3-64 characters of A-Z a-z 0-9 _ -' })
  override slug?: string;
}
