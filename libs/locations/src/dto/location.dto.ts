import {
  ID_PATTERN,
  NestedObject,
  NotEmpty,
  PathId,
  ReadOnly,
  Required,
  ID_MESSAGE,
} from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** JSON numbers only: `"12"` is refused (the global pipe does no implicit conversion). */
const FINITE = { allowNaN: false, allowInfinity: false };

/** `{locationId}` in a path, checked against the spec's id pattern. */
export class LocationIdParam {
  @PathId('019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b')
  locationId!: string;
}

export class PassRefDto {
  @ApiProperty({
    description: 'A pass of this workspace (its `id`, the pass serial number)',
    pattern: ID_PATTERN.source,
    example: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b',
  })
  @Required()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  id!: string;
}

/** Fields of the Location a client may send back although the service owns them. */
class LocationReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() accountId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
}

/** The body of POST and PUT (PUT replaces the whole location, so both take the same fields). */
export class LocationDto extends LocationReadOnlyFields {
  @ApiProperty({ maxLength: 255, example: 'Flagship store' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty({ minimum: -90, maximum: 90, example: 51.5074, description: 'Degrees' })
  @Required()
  @IsNumber(FINITE)
  @Min(-90)
  @Max(90)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: -0.1278, description: 'Degrees' })
  @Required()
  @IsNumber(FINITE)
  @Min(-180)
  @Max(180)
  longitude!: number;

  @ApiProperty({
    maxLength: 255,
    example: 'Your member offer is waiting in store',
    description: 'Shown on the lock screen near the location',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  relevantText!: string;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    default: true,
    description: 'Only enabled locations go into the pass (at most 10 per pass).',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 35, description: 'Metres' })
  @IsOptional()
  @IsNumber(FINITE)
  altitude?: number | null;

  @ApiPropertyOptional({
    type: PassRefDto,
    nullable: true,
    description: 'The pass that shows this location; absent or null: no pass.',
  })
  @IsOptional()
  @NestedObject(() => PassRefDto)
  walletPass?: PassRefDto | null;
}
