import { ID_PATTERN, PageQuery, QueryBoolean, QueryList } from '@app/core';
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
import { PASS_STATUSES, type PassStatus } from '../entities/pass.entity';

const ID_MESSAGE = { message: `must match ${ID_PATTERN.source}` };

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
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  id?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Repeat the parameter or separate with commas.',
  })
  @IsOptional()
  @QueryList()
  @ArrayMaxSize(100)
  @MaxLength(64, { each: true })
  @Matches(ID_PATTERN, { each: true, ...ID_MESSAGE })
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
