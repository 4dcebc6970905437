import { ID_PATTERN, NotEmpty, PathId, ReadOnly, Required, ID_MESSAGE } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { AudienceJson } from '../audience';
import type { Segment } from '../segment.entity';

export const AUDIENCE_DESCRIPTION =
  'A condition tree. A node is exactly one of `{"all": [node, …]}`, ' +
  '`{"any": [node, …]}`, `{"not": node}`, `{"tag": "gold"}`, `{"field": "<face field key>", ' +
  '<op>}` (the holder’s value, else the pass’s), `{"attribute": "<key>", <op>}`, ' +
  '`{"installed": "walletA" | "walletB" | "any" | "none"}`, `{"status": "Active" | "Voided"}` ' +
  '(without one, Active holders only), `{"createdAfter": "<ISO>"}`, `{"createdBefore": ' +
  '"<ISO>"}`. `<op>` is one of `eq`, `ne`, `in` (≤ 1,000 values), `gt`, `gte`, `lt`, `lte`, ' +
  '`exists` (boolean), `contains` (case-insensitive). A number compares numerically (a text ' +
  'that is a decimal number counts as that number), a text as text; a holder without the value ' +
  'matches only `exists: false` and `ne`. At most 100 nodes, 6 levels, 5,000 `in` values in ' +
  'all and 10 `contains` tests.';

export const AUDIENCE_EXAMPLE = {
  all: [
    { tag: 'gold' },
    { attribute: 'city', eq: 'Zurich' },
    { field: 'points', gte: 500 },
    { installed: 'any' },
  ],
};

/** How Swagger shows an audience: an object of conditions, described above. */
export const AUDIENCE_PROPERTY = {
  type: 'object',
  additionalProperties: true,
  description: AUDIENCE_DESCRIPTION,
  example: AUDIENCE_EXAMPLE,
} as const;

/** `{id}` (the pass) and `{segmentId}` in a segment's path. */
export class SegmentPathParams {
  @PathId()
  id!: string;

  @PathId()
  segmentId!: string;
}

/** Segment fields a client may send back although the service owns them. */
class SegmentReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() passId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
}

export class UpdateSegmentDto extends SegmentReadOnlyFields {
  @ApiPropertyOptional({ maxLength: 255, example: 'Gold in Zurich' })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional(AUDIENCE_PROPERTY)
  @IsOptional()
  @IsObject()
  audience?: AudienceJson;
}

export class CreateSegmentDto extends SegmentReadOnlyFields {
  @ApiProperty({ maxLength: 255, example: 'Gold in Zurich', description: 'Unique per pass.' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty(AUDIENCE_PROPERTY)
  @Required()
  @IsObject()
  audience!: AudienceJson;
}

/** Whom to count or reach: an audience, or a segment of the pass (exactly one). */
export class AudienceTargetDto {
  @ApiPropertyOptional(AUDIENCE_PROPERTY)
  @IsOptional()
  @IsObject()
  audience?: AudienceJson;

  @ApiPropertyOptional({ pattern: ID_PATTERN.source, description: 'A segment of the pass.' })
  @IsOptional()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  segmentId?: string;
}

export class SegmentResponse {
  @ApiProperty() id!: string;
  @ApiProperty() passId!: string;
  @ApiProperty({ example: 'Gold in Zurich' }) name!: string;
  @ApiProperty({ type: 'object', example: AUDIENCE_EXAMPLE, additionalProperties: true })
  audience!: AudienceJson;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class SegmentPage {
  @ApiProperty({ type: [SegmentResponse] }) items!: SegmentResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export class AudienceSizeResponse {
  @ApiProperty({ example: 1840, description: 'Holders the audience matches now' })
  holders!: number;
  @ApiProperty({ example: 1500, description: 'WalletA devices of those holders (Active ones)' })
  walletADevices!: number;
  @ApiProperty({ example: 420, description: 'WalletB objects of those holders (Active ones)' })
  walletBObjects!: number;
}

export function toSegmentResponse(segment: Segment): SegmentResponse {
  return {
    id: segment.id,
    passId: segment.passId,
    name: segment.name,
    audience: segment.audience,
    workspaceId: segment.workspaceId,
    createdTime: segment.createdTime.toISOString(),
    updatedTime: segment.updatedTime.toISOString(),
    createdBy: segment.createdBy,
    updatedBy: segment.updatedBy,
  };
}
