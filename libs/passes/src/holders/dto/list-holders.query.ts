import { PageQuery, QueryBoolean, QueryList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { HOLDER_STATUSES, type HolderStatus } from '../holder.entity';

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
}
