import { ID_PATTERN, PageQuery, QueryId, QueryIdList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

const LIST_DESCRIPTION = 'Repeat the parameter or separate with commas.';

/** GET /wallet-pass-location, with the parameter names of the other list queries. */
export class ListLocationsQuery extends PageQuery {
  @ApiPropertyOptional({
    maxLength: 255,
    description: 'Case-insensitive search in name.',
    example: 'store',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  keyword?: string;

  @ApiPropertyOptional({
    maxLength: 255,
    description: 'Exact, case-sensitive name.',
    example: 'Flagship store',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({
    type: [String],
    description: `Locations of these passes (pass ids = serial numbers). ${LIST_DESCRIPTION}`,
  })
  @QueryIdList()
  passSerialNumbers?: string[];

  @ApiPropertyOptional({ type: [String], description: `Location ids. ${LIST_DESCRIPTION}` })
  @QueryIdList()
  ids?: string[];

  @ApiPropertyOptional({ pattern: ID_PATTERN.source, description: 'One location id.' })
  @QueryId()
  id?: string;
}
