import {
  flattenValidationErrors,
  FreeForm,
  IsIsoDateTime,
  MUST_NOT_BE_NULL,
  NestedObject,
  NotEmpty,
  plainToDto,
  ReadOnly,
  Required,
  PathId,
} from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  validateSync,
} from 'class-validator';

export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._@+-]+$/;
export const MAX_FIELD_VALUE_LENGTH = 2000;

/** `{id}` (the pass) and `{holderId}` in a holder's path. */
export class HolderPathParams {
  @PathId('019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b')
  id!: string;

  @PathId('019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b')
  holderId!: string;
}

/** A boarding pass passenger's name (WalletA `passengerName`, WalletB `passengerName`). */
export class PassengerNameDto {
  @ApiProperty({ example: 'Maya', maxLength: 255 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  givenName!: string;

  @ApiProperty({ example: 'Rivera', maxLength: 255 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  familyName!: string;
}

/** Holder fields a client may send back although the service owns them. */
class HolderReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() passId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() serialNumber?: unknown;
  @ReadOnly() status?: unknown;
  @ReadOnly() downloadUrl?: unknown;
  @ReadOnly() googleSaveUrl?: unknown;
  @ReadOnly() appleInstalledCount?: unknown;
  @ReadOnly() googleInstalledCount?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
}

/**
 * The body of POST and PATCH and one row of an import. Every field is optional here because
 * PATCH takes any subset; `externalId` is required on create and in every import row (checked
 * by {@link requireExternalId}). The `fieldValues` keys are checked against the pass's fields
 * by the service, which knows the pass.
 */
export class HolderInputDto extends HolderReadOnlyFields {
  @ApiPropertyOptional({
    maxLength: 255,
    pattern: EXTERNAL_ID_PATTERN.source,
    example: 'member-10442',
    description: "The brand's member id; unique per pass. Required on create.",
  })
  // Absent is fine (PATCH); null is refused, as the field can never be cleared.
  @ValidateIf((_object, value) => value !== undefined)
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  @Matches(EXTERNAL_ID_PATTERN, { message: `must match ${EXTERNAL_ID_PATTERN.source}` })
  externalId?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_FIELD_VALUE_LENGTH },
    nullable: true,
    example: { points: '1200', name: 'Maya Rivera' },
    description:
      "Values of the pass's face fields (`topField`, header, primary, secondary and auxiliary " +
      'fields), by field key (a key of any other ' +
      'field is a 400 naming `fieldValues.<key>`). A field without a value shows the pass’s. ' +
      'PATCH merges by key: a key set to null goes back to the pass’s value.',
  })
  @IsOptional()
  @IsObject()
  @FreeForm()
  fieldValues?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2048,
    example: 'https://brand.example/member/10442',
    description: "The holder's barcode message; absent or null: the pass's `qrUrl`.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  barcodeValue?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 255,
    example: 'Member 10442',
    description: "Text under the barcode; absent or null: the pass's `qrText`.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  barcodeText?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-05-01T19:30:00+02:00',
    description:
      "ISO 8601 with its offset: when this holder's pass is relevant (a ticket's day); " +
      "absent or null: the pass's `relevantDate`.",
  })
  @IsOptional()
  @IsIsoDateTime()
  relevantDate?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-05-02T04:00:00+02:00',
    description:
      "ISO 8601 with its offset: after it this holder's pass shows as expired; absent or " +
      "null: the pass's `expirationDate`.",
  })
  @IsOptional()
  @IsIsoDateTime()
  expirationDate?: string | null;

  @ApiPropertyOptional({
    type: PassengerNameDto,
    nullable: true,
    description:
      "The passenger, for a holder of a boardingPass only (another kind's holder: 400). On a " +
      "flight whose transit has `boardingTime` and both ends' `timeZone`, it opts the holder " +
      'into the semantic boarding pass (iOS 26); both wallets show it. PATCH null removes it.',
  })
  @IsOptional()
  @NestedObject(() => PassengerNameDto)
  passengerName?: PassengerNameDto | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'MEMBER-10442',
    description:
      "What terminals read over NFC from this holder's copy on both wallets (1–64 bytes of " +
      'UTF-8), for a pass with `passMetadata.nfc` only (another pass: 400); absent or null: ' +
      "the pass's `nfc.message`.",
  })
  @IsOptional()
  @IsString()
  nfcMessage?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 50,
    example: ['gold', 'zurich'],
    description:
      'For audiences; never shown on the pass. At most 50, each 1–64 characters of ' +
      '`[A-Za-z0-9._:-]`, case-sensitive; repeats are dropped and the list is answered sorted. ' +
      'PATCH replaces the list.',
  })
  @IsOptional()
  @IsArray()
  tags?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      oneOf: [{ type: 'string', maxLength: 255 }, { type: 'number' }, { type: 'boolean' }],
    },
    example: { tier: 'gold', city: 'Zurich', spend: 1240.5, newsletter: true },
    // No "$" before a backquote or a quote here: Swagger UI's page script puts the document in
    // with String.replace, which reads "$`" and "$'" as patterns, and the page then fails.
    description:
      'For audiences; never shown on the pass. At most 50 keys, each a letter then up to 63 ' +
      'letters, digits or underscores; a value is a text of at most 255 characters, a finite ' +
      'number or a boolean. PATCH (and an import row) merges by key; a key set to null is removed.',
  })
  @IsOptional()
  @IsObject()
  @FreeForm()
  attributes?: Record<string, unknown> | null;
}

/** A create or an import row without `externalId`: the spec's "must not be null". */
export function requireExternalId(input: HolderInputDto): Record<string, string> | undefined {
  return input.externalId === undefined ? { externalId: MUST_NOT_BE_NULL } : undefined;
}

/**
 * One import row checked as the global pipe checks a body (unknown fields refused) plus the
 * required `externalId`; problems keyed by field path (`""` for the row itself).
 */
export function validateHolderInput(
  plain: unknown,
): { input: HolderInputDto; errors?: undefined } | { errors: Record<string, string> } {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { errors: { '': 'must be an object' } };
  }
  const input = plainToDto(HolderInputDto, plain);
  const problems = validateSync(input, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: false },
  });
  const errors = {
    ...(problems.length > 0 ? flattenValidationErrors(problems) : {}),
    ...(requireExternalId(input) ?? {}),
  };
  return Object.keys(errors).length > 0 ? { errors } : { input };
}
