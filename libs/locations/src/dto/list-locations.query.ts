import { ID_PATTERN, PageQuery, QueryList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const ID_MESSAGE = { message: `must match ${ID_PATTERN.source}` };
const LIST_DESCRIPTION = 'Repeat the parameter or separate with commas.';

/** GET /wallet-pass-location, with the parameter names of DESIGN.md §3. */
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
  @IsOptional()
  @QueryList()
  @ArrayMaxSize(100)
  @MaxLength(64, { each: true })
  @Matches(ID_PATTERN, { each: true, ...ID_MESSAGE })
  passSerialNumbers?: string[];

  @ApiPropertyOptional({ type: [String], description: `Location ids. ${LIST_DESCRIPTION}` })
  @IsOptional()
  @QueryList()
  @ArrayMaxSize(100)
  @MaxLength(64, { each: true })
  @Matches(ID_PATTERN, { each: true, ...ID_MESSAGE })
  ids?: string[];

  @ApiPropertyOptional({ pattern: ID_PATTERN.source, description: 'One location id.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  id?: string;
}
