import {
  FreeForm,
  ID_PATTERN,
  MUST_BE_OBJECT,
  MUST_NOT_BE_EMPTY,
  NestedObject,
  ReadOnly,
  PathId,
  ID_MESSAGE,
} from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import type { AudienceJson } from '../audience';
import { AUDIENCE_PROPERTY } from '../dto/audience.dto';
import { MAX_FIELD_VALUE_LENGTH } from '@app/holders';
import { MAX_BULK_HOLDER_IDS } from './bulk-changes';
import {
  BULK_CHANGE_STATUSES,
  type BulkChangeStatus,
  type HolderBulkChange,
} from './holder-bulk-change.entity';

/** `{id}` (the pass) and `{bulkId}` in a bulk change's path. */
export class BulkChangePathParams {
  @PathId('019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b')
  id!: string;

  @PathId('019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b')
  bulkId!: string;
}

/** What every holder gets, as a PATCH of it would say. */
export class BulkSetDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_FIELD_VALUE_LENGTH, nullable: true },
    example: { tier: 'Gold' },
    description:
      "Values of the pass's face fields by key, merged into each holder's (a key of no face field " +
      "is a 400 naming `set.fieldValues.<key>`); a key set to null goes back to the pass's value.",
  })
  // Absent is fine; null is refused (it would clear every value, which no bulk change means).
  @ValidateIf((_object, value) => value !== undefined)
  @IsObject({ message: MUST_BE_OBJECT })
  @FreeForm()
  fieldValues?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      oneOf: [{ type: 'string', maxLength: 255 }, { type: 'number' }, { type: 'boolean' }],
    },
    example: { tier: 'gold', newsletter: true },
    description:
      "Attributes merged into each holder's by key (the attribute rules of HolderInput); a key " +
      'set to null is removed.',
  })
  @ValidateIf((_object, value) => value !== undefined)
  @IsObject({ message: MUST_BE_OBJECT })
  @FreeForm()
  attributes?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 255,
    example: 'Gold member',
    description: "Text under each holder's barcode; null: the pass's `qrText`.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  barcodeText?: string | null;
}

/** BulkChange fields a client may send back although the service owns them. */
class BulkChangeReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() passId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() status?: unknown;
  @ReadOnly() matched?: unknown;
  @ReadOnly() updated?: unknown;
  @ReadOnly() skipped?: unknown;
  @ReadOnly() failureReason?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() finishedTime?: unknown;
}

/**
 * `POST /v1/wallet-pass/{id}/holders/bulk`: whom (exactly one of `audience`, `segmentId`,
 * `holderIds`) and what (at least one of `set`, `addTags`, `removeTags`, `increment`). The
 * shapes are checked here; the rules that need the pass (face field keys, tags, attributes, the
 * audience) by the service.
 */
export class CreateBulkChangeDto extends BulkChangeReadOnlyFields {
  @ApiPropertyOptional(AUDIENCE_PROPERTY)
  @IsOptional()
  @IsObject({ message: MUST_BE_OBJECT })
  audience?: AudienceJson;

  @ApiPropertyOptional({
    pattern: ID_PATTERN.source,
    description: 'A segment of the pass: its audience as it is when the change starts.',
    example: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b',
  })
  @IsOptional()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  segmentId?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_BULK_HOLDER_IDS,
    description: `Holders of the pass by id (at most ${MAX_BULK_HOLDER_IDS}).`,
    example: ['019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b'],
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: MUST_NOT_BE_EMPTY })
  @ArrayMaxSize(MAX_BULK_HOLDER_IDS)
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, ...ID_MESSAGE })
  @MaxLength(64, { each: true })
  holderIds?: string[];

  @ApiPropertyOptional({ type: BulkSetDto })
  @IsOptional()
  @NestedObject(() => BulkSetDto)
  set?: BulkSetDto;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 50,
    example: ['gold'],
    description: "Tags added to each holder's (1–64 characters of `[A-Za-z0-9._:-]`).",
  })
  @IsOptional()
  @IsArray()
  addTags?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: 50,
    example: ['silver'],
    description: "Tags removed from each holder's; not also in `addTags`.",
  })
  @IsOptional()
  @IsArray()
  removeTags?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { points: 50 },
    description:
      'Numbers added exactly, by key. Each is read as the shortest decimal that is the same ' +
      'JSON number (0.1 adds 0.1) and may have at most 30 digits before the decimal point and ' +
      '30 after it. A face field of the pass if the key is one: its text (the holder’s own, ' +
      'else the pass’s) must be a decimal number (up to 30 digits, then optionally a point and ' +
      'up to 30 more); the sum is written as such a text, never in exponent form, with the ' +
      'decimals of the more precise of the two. Else an attribute (a number, or a text that is ' +
      'a decimal number): the sum is a number when a JSON number holds it exactly (a safe ' +
      'integer, or a fraction whose shortest form is the sum), else its decimal text, which ' +
      'audiences compare as that number. A holder whose value is no number, or whose sum would ' +
      'have more than 30 digits before the point, is left as it is and counted in `skipped`. A ' +
      'key may not also be in `set`.',
  })
  @IsOptional()
  @IsObject({ message: MUST_BE_OBJECT })
  @FreeForm()
  increment?: Record<string, unknown>;
}

export class BulkChangeResponse {
  @ApiProperty({ example: '019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
  @ApiProperty({ example: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b' }) passId!: string;
  @ApiProperty({ example: '019a2b3c-0000-7f60-8a1b-2c3d4e5f6a7b' }) workspaceId!: string;
  @ApiProperty({
    enum: BULK_CHANGE_STATUSES,
    example: 'Done',
    description: 'Pending (queued), Running (holders being changed), Done or Failed.',
  })
  status!: BulkChangeStatus;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 1840,
    description: 'Holders the target matched when the change started; null until then.',
  })
  matched!: number | null;
  @ApiProperty({
    example: 1822,
    description:
      'Holders changed (each as a PATCH: pushed, WalletB object patched, `holder.updated` sent). ' +
      'A holder the change leaves as it was (it had the tag already) counts in neither.',
  })
  updated!: number;
  @ApiProperty({
    example: 18,
    description:
      'Holders left alone: Voided, a value to increment that is no number or whose sum would ' +
      'have more than 30 digits before or after the point, or more than 50 tags or attributes ' +
      'after the change.',
  })
  skipped!: number;
  @ApiProperty({ nullable: true, type: String, example: null }) failureReason!: string | null;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  finishedTime!: string | null;
}

export function toBulkChangeResponse(change: HolderBulkChange): BulkChangeResponse {
  return {
    id: change.id,
    passId: change.passId,
    workspaceId: change.workspaceId,
    status: change.status,
    matched: change.matched,
    updated: change.updated,
    skipped: change.skipped,
    failureReason: change.failureReason,
    createdTime: change.createdTime.toISOString(),
    finishedTime: change.finishedTime?.toISOString() ?? null,
  };
}
