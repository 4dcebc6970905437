import {
  FreeForm,
  IsIsoDateTime,
  NestedObject,
  NestedObjects,
  NotEmpty,
  Required,
} from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  BARCODE_FALLBACK_FORMATS,
  BARCODE_FORMATS,
  type BarcodeFallbackFormat,
  type BarcodeFormat,
  DATE_STYLES,
  type DateStyle,
  DEFAULT_PASS_TYPE,
  PASS_TYPES,
  type PassType,
} from '@app/kinds';
import { MAX_LOCALIZATIONS, type PassLocalizations } from '../localizations';
import { FeaturedActionDto, MAX_FEATURED_ACTIONS } from './featured-action.dto';
import { NfcDto } from './nfc.dto';
import { EventDto, OfferDto, TransitDto } from './pass-kind.dto';
import {
  ArrayMaxSize,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
} from 'class-validator';

const HEX_COLOUR = /^#[0-9A-Fa-f]{6}$/;
const FIELD_KEY = /^[A-Za-z0-9_.-]+$/;
export const SLUG_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;
const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export class LinkValueDto {
  @ApiPropertyOptional({ example: 'Opening hours' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  text?: string;

  @ApiPropertyOptional({ example: 'https://brand.example/stores' })
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'must be an http(s) URL' })
  @MaxLength(2048)
  link?: string;

  @ApiPropertyOptional({
    description: 'Slug of the short link; a random one is made if absent.',
    example: 'stores',
  })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be 3-64 characters of A-Z a-z 0-9 _ -' })
  slug?: string;

  @ApiPropertyOptional({ description: 'Read-only: `{PUBLIC_BASE_URL}/l/{slug}`.' })
  @IsOptional()
  @IsString()
  shortLinkValue?: string;

  @ApiPropertyOptional({ description: 'Read-only unless sent back to keep the same short link.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  shortLinkId?: string;

  @ApiPropertyOptional({ example: 'wallet' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  utmSource?: string;
}

export class FieldDto {
  @ApiProperty({ example: 'points', pattern: FIELD_KEY.source })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(64)
  @Matches(FIELD_KEY, { message: `must match ${FIELD_KEY.source}` })
  key!: string;

  @ApiPropertyOptional({ example: 'Points' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  label?: string;

  @ApiProperty({ example: '1200' })
  @Required()
  @IsString()
  @MaxLength(2000)
  value!: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: 'You now have %@ points',
    description: 'Shown on the lock screen when the value changes (`%@` is the new value).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  changeMessage?: string | null;

  @ApiPropertyOptional({
    enum: DATE_STYLES,
    description:
      'Shows the value, then an ISO 8601 date-time with its offset, as a date in the ' +
      "holder's locale and time zone (WalletA `PKDateStyle…`).",
  })
  @IsOptional()
  @IsIn(DATE_STYLES)
  dateStyle?: DateStyle;

  @ApiPropertyOptional({
    enum: DATE_STYLES,
    description: 'As `dateStyle`, for the time of the value (WalletA `PKDateStyle…`).',
  })
  @IsOptional()
  @IsIn(DATE_STYLES)
  timeStyle?: DateStyle;
}

export class BackFieldDto {
  @ApiProperty({ example: 'links', pattern: FIELD_KEY.source })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(64)
  @Matches(FIELD_KEY, { message: `must match ${FIELD_KEY.source}` })
  key!: string;

  @ApiPropertyOptional({ example: 'Useful links' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  label?: string;

  @ApiProperty({ type: [LinkValueDto] })
  @Required()
  @ArrayMaxSize(10)
  @NestedObjects(() => LinkValueDto)
  value!: LinkValueDto[];

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  changeMessage?: string | null;
}

export class PassMetadataDto {
  @ApiPropertyOptional({
    enum: PASS_TYPES,
    default: DEFAULT_PASS_TYPE,
    description:
      'The kind of pass: the WalletA style of that name; on WalletB a loyalty, offer, event ' +
      'ticket, flight or transit, or generic class. A Published pass keeps its kind (409).',
  })
  @IsOptional()
  @IsIn(PASS_TYPES)
  passType?: PassType;

  @ApiProperty({ example: 'Loyalty card of Brand' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  description!: string;

  @ApiProperty({ example: 'Brand Ltd' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  organizationName!: string;

  @ApiPropertyOptional({ example: '#1A2B3C', pattern: HEX_COLOUR.source })
  @IsOptional()
  @Matches(HEX_COLOUR, { message: 'must be a colour written as #RRGGBB' })
  backgroundColor?: string;

  @ApiPropertyOptional({ example: '#FFFFFF', pattern: HEX_COLOUR.source })
  @IsOptional()
  @Matches(HEX_COLOUR, { message: 'must be a colour written as #RRGGBB' })
  displayTextColor?: string;

  @ApiPropertyOptional({ type: FieldDto })
  @IsOptional()
  @NestedObject(() => FieldDto)
  topField?: FieldDto;

  @ApiPropertyOptional({
    type: [FieldDto],
    maxItems: 3,
    description: 'Header fields after `topField` (three header fields in all).',
  })
  @IsOptional()
  @ArrayMaxSize(3)
  @NestedObjects(() => FieldDto)
  headerFields?: FieldDto[];

  @ApiPropertyOptional({
    type: [FieldDto],
    maxItems: 2,
    description: 'One field; two on a boarding pass (origin and destination).',
  })
  @IsOptional()
  @ArrayMaxSize(2)
  @NestedObjects(() => FieldDto)
  primaryFields?: FieldDto[];

  @ApiPropertyOptional({
    type: [FieldDto],
    maxItems: 4,
    description:
      'On a store card, coupon or generic pass, at most four with `auxiliaryFields` together.',
  })
  @IsOptional()
  @ArrayMaxSize(4)
  @NestedObjects(() => FieldDto)
  secondaryFields?: FieldDto[];

  @ApiPropertyOptional({
    type: [FieldDto],
    maxItems: 5,
    description:
      'Four fields; five on a boarding pass. On a store card, coupon or generic pass, at ' +
      'most four with `secondaryFields` together.',
  })
  @IsOptional()
  @ArrayMaxSize(5)
  @NestedObjects(() => FieldDto)
  auxiliaryFields?: FieldDto[];

  @ApiPropertyOptional({ type: [BackFieldDto], maxItems: 20 })
  @IsOptional()
  @ArrayMaxSize(20)
  @NestedObjects(() => BackFieldDto)
  backFields?: BackFieldDto[];

  @ApiPropertyOptional({
    example: 'https://brand.example/member/123',
    maxLength: 2048,
    description:
      'The barcode message: any text (a URL, a member number, ...) for QR, PDF417 and Aztec; ' +
      'ASCII for Code128; 13 digits ending in their GS1 check digit for EAN13; digits, capital ' +
      'letters, space and `- . $ / + %` for Code39; digits and `- $ : / . +`, optionally between ' +
      'a start and a stop letter A-D, for Codabar; an even number of digits for ITF.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  qrUrl?: string;

  @ApiPropertyOptional({
    enum: BARCODE_FORMATS,
    default: 'QR',
    description:
      'The barcode: WalletA `PKBarcodeFormat…`, WalletB `QR_CODE`, `PDF_417`, `AZTEC`, ' +
      '`CODE_128`. iOS 27 formats: `EAN13` (WalletB `EAN_13`), `Code39` (`CODE_39`), `Codabar` ' +
      '(`CODABAR`) and `ITF` (WalletA Interleaved 2 of 5; WalletB `ITF_14` when the value is 14 ' +
      'digits ending in their check digit, else the fallback): WalletA lists the format first ' +
      'and `barcodeFallbackFormat` after it for older iPhones.',
  })
  @IsOptional()
  @IsIn(BARCODE_FORMATS)
  barcodeFormat?: BarcodeFormat;

  @ApiPropertyOptional({
    enum: BARCODE_FALLBACK_FORMATS,
    default: 'QR',
    description:
      'With an iOS 27 `barcodeFormat` (`EAN13`, `Code39`, `Codabar`, `ITF`): the format iPhones ' +
      'before iOS 27 render, listed after it in WalletA `barcodes`, and the WalletB type where ' +
      "WalletB's own type cannot carry the value. Not used with the other formats.",
  })
  @IsOptional()
  @IsIn(BARCODE_FALLBACK_FORMATS)
  barcodeFallbackFormat?: BarcodeFallbackFormat;

  @ApiPropertyOptional({
    example: '2026-05-01T19:30:00+02:00',
    description:
      'ISO 8601 date-time with its offset: the lock screen offers the pass around then (WalletA).',
  })
  @IsOptional()
  @IsIsoDateTime()
  relevantDate?: string;

  @ApiPropertyOptional({
    example: '2026-05-02T04:00:00+02:00',
    description:
      'ISO 8601 date-time with its offset: after it the pass shows as expired (WalletA; on ' +
      "WalletB the end of the objects' validity).",
  })
  @IsOptional()
  @IsIsoDateTime()
  expirationDate?: string;

  @ApiPropertyOptional({
    type: EventDto,
    description: 'Required for an `eventTicket`, only there.',
  })
  @IsOptional()
  @NestedObject(() => EventDto)
  event?: EventDto;

  @ApiPropertyOptional({ type: OfferDto, description: 'Required for a `coupon`, only there.' })
  @IsOptional()
  @NestedObject(() => OfferDto)
  offer?: OfferDto;

  @ApiPropertyOptional({
    type: TransitDto,
    description: 'Required for a `boardingPass`, only there.',
  })
  @IsOptional()
  @NestedObject(() => TransitDto)
  transit?: TransitDto;

  @ApiPropertyOptional({ example: 'Member 123' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  qrText?: string;

  @ApiPropertyOptional({
    type: [FeaturedActionDto],
    maxItems: MAX_FEATURED_ACTIONS,
    example: [{ type: 'membershipBenefits', url: 'https://brand.example/benefits' }],
    description:
      'Up to two links Wallet shows below the pass, most important first (iOS 27 and later; ' +
      'WalletA `featuredActions`, each with its type as its identifier). Older devices, ' +
      'WalletB and the holder page do not show them.',
  })
  @IsOptional()
  @ArrayMaxSize(MAX_FEATURED_ACTIONS)
  @NestedObjects(() => FeaturedActionDto)
  featuredActions?: FeaturedActionDto[];

  @ApiPropertyOptional({
    type: NfcDto,
    description:
      'Terminals read the pass over NFC: WalletA `nfc` (Value Added Services), WalletB Smart ' +
      'Tap. Required with an `artwork` image on an `eventTicket`: Wallet shows a poster event ' +
      'ticket only with NFC. Terminals read it only when the pass type certificate carries ' +
      "Apple's NFC entitlement and the Google issuer has Smart Tap enabled.",
  })
  @IsOptional()
  @NestedObject(() => NfcDto)
  nfc?: NfcDto;

  @ApiPropertyOptional({
    type: 'object',
    maxProperties: MAX_LOCALIZATIONS,
    additionalProperties: {
      type: 'object',
      properties: {
        description: { type: 'string', maxLength: 255 },
        organizationName: { type: 'string', maxLength: 255 },
        passName: { type: 'string', maxLength: 255 },
        fields: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: {
              label: { type: 'string', maxLength: 255 },
              value: { type: 'string', maxLength: 2000 },
            },
          },
        },
      },
    },
    example: {
      de: {
        description: 'Eintrittskarte',
        fields: { seat: { label: 'Platz' }, event: { value: 'Sommergala' } },
      },
    },
    description:
      'Texts in other languages, by BCP 47 tag: WalletA `<lang>.lproj/pass.strings`, WalletB ' +
      "`translatedValues`, and the holder page in the browser's language. `fields` names the " +
      "pass's fields by key: a face field's label and value, a back field's label.",
  })
  @IsOptional()
  @IsObject()
  @FreeForm()
  localizations?: PassLocalizations;
}

/**
 * Image file names a pass package can hold (Apple's names, with their @2x/@3x variants). Which
 * of them a pass's package holds is its kind's (`passImagesOf`): an image its style never shows
 * is accepted and left out. `artwork` opts an eventTicket into the poster event ticket (see
 * `assertPosterArtwork`) and a generic pass into the poster generic pass.
 */
export const PASS_IMAGE_NAME =
  /^(logo|icon|strip|footer|thumbnail|background|artwork|primaryLogo)(@[23]x)?\.png$/;
/** Every name of PASS_IMAGE_NAME: eight roles at three scales. */
export const PASS_IMAGE_NAMES_MAX = 24;

export class UploadInfoDto {
  @ApiProperty({
    example: 'logo.png',
    pattern: PASS_IMAGE_NAME.source,
    description:
      "Apple's image name. A plain name (`icon.png`) is the image at @3x: the package holds " +
      'it as `icon@3x.png` and `icon@2x.png` and `icon.png` resized from it (2/3 and 1/3); a ' +
      'role given under scale names (`icon@2x.png`) uses those files as given, the plain name ' +
      "then being its @1x. Each kind's package holds the images its WalletA style shows (a " +
      'strip on a store card or coupon, a footer on a boarding pass, a thumbnail on a generic ' +
      'pass, a strip or else a background and thumbnail on an event ticket) and leaves the ' +
      'others out, so one set of brand images serves every kind. `artwork` (358×448 points) ' +
      'opts an `eventTicket` into the poster event ticket (iOS 26; it needs `event.venueRegion`, ' +
      '`event.venueRoom` and `nfc`, which Wallet requires of a poster) and a `generic` pass into the ' +
      'poster generic pass (iOS 27); older devices show the classic style. `primaryLogo` ' +
      '(126×30 points) is the logo of those posters.',
  })
  @Required()
  @IsString()
  @Matches(PASS_IMAGE_NAME, {
    message:
      'must be logo, icon, strip, footer, thumbnail, background, artwork or primaryLogo (.png, @2x, @3x)',
  })
  fileName!: string;

  @ApiProperty({ description: 'From POST /v1/uploads/storage' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(64)
  @Matches(/^[a-zA-Z0-9-_]+$/, { message: 'must match ^[a-zA-Z0-9-_]+$' })
  uploadKey!: string;
}
