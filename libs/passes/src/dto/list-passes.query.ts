import { ID_PATTERN, PageQuery, QueryBoolean, QueryList, QueryId, QueryIdList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PASS_STATUSES, type PassStatus } from '../entities/pass.entity';

export class ListPassesQuery extends PageQuery {
  @ApiPropertyOptional({ maxLength: 255, description: 'Case-insensitive search in passName.' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  keyword?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'Exact, case-sensitive passName.' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ pattern: ID_PATTERN.source })
  @QueryId()
  id?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Repeat the parameter or separate with commas.',
  })
  @QueryIdList()
  ids?: string[];

  @ApiPropertyOptional({ enum: PASS_STATUSES, isArray: true })
  @IsOptional()
  @QueryList()
  @IsIn(PASS_STATUSES, { each: true })
  status?: PassStatus[];

  @ApiPropertyOptional({ description: 'Add signed, expiring URLs of the pass images.' })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  includeAssets?: boolean;

  @ApiPropertyOptional({ description: 'Only id, passName, status and the counters.' })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  summary?: boolean;
}
