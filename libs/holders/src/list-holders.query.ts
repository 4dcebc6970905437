import { ID_PATTERN, PageQuery, QueryBoolean, QueryList, ID_MESSAGE } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { MAX_TAGS, TAG_PATTERN } from './holder-targeting';
import { HOLDER_STATUSES, type HolderStatus } from '@app/passes';

/** GET /wallet-pass/{id}/holders. */
export class ListHoldersQuery extends PageQuery {
  @ApiPropertyOptional({
    maxLength: 255,
    description: 'Exact externalId (the brand’s member id).',
    example: 'member-10442',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  externalId?: string;

  @ApiPropertyOptional({
    enum: HOLDER_STATUSES,
    isArray: true,
    description: 'Repeat the parameter or separate with commas.',
  })
  @IsOptional()
  @QueryList()
  @IsIn(HOLDER_STATUSES, { each: true })
  status?: HolderStatus[];

  @ApiPropertyOptional({
    description:
      'true: holders with the pass on at least one device or WalletB object; false: on none.',
  })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  installed?: boolean;

  @ApiPropertyOptional({
    type: [String],
    description: 'Holders with every tag given (repeat the parameter or separate with commas).',
    example: ['gold'],
  })
  @IsOptional()
  @QueryList()
  @ArrayMaxSize(MAX_TAGS)
  @Matches(TAG_PATTERN, { each: true, message: `each tag must match ${TAG_PATTERN.source}` })
  tag?: string[];

  @ApiPropertyOptional({
    pattern: ID_PATTERN.source,
    description:
      "Holders a segment of the pass matches now (with the segment's statuses: Active only " +
      'unless its audience names one).',
  })
  @IsOptional()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  segmentId?: string;
}
