import {
  ConflictError,
  InvalidInputError,
  ISO_DATE_TIME_MESSAGE as ISO_MESSAGE,
  isIsoDateTime,
} from '@app/core';
import type { FieldDto, PassMetadataDto } from './dto/pass-metadata.dto';
import { assertLocalizations } from './localizations';

/** The kinds of pass: WalletA's pass styles, by their names in pass.json. */
export const PASS_TYPES = [
  'storeCard',
  'coupon',
  'eventTicket',
  'boardingPass',
  'generic',
] as const;
export type PassType = (typeof PASS_TYPES)[number];
export const DEFAULT_PASS_TYPE: PassType = 'storeCard';

/** The face slots of a pass; `topField` is the first header field. */
export type FaceSlot = 'headerFields' | 'primaryFields' | 'secondaryFields' | 'auxiliaryFields';

/** The block of kind-specific details each style requires (and no other style may carry). */
export const KIND_BLOCKS = {
  eventTicket: 'event',
  coupon: 'offer',
  boardingPass: 'transit',
} as const;
type KindBlock = (typeof KIND_BLOCKS)[keyof typeof KIND_BLOCKS];

/** A field's `dateStyle`/`timeStyle` (WalletA `PKDateStyleNone`, `PKDateStyleShort`, ...). */
export const DATE_STYLES = ['none', 'short', 'medium', 'long', 'full'] as const;
export type DateStyle = (typeof DATE_STYLES)[number];

export const REDEMPTION_CHANNELS = ['instore', 'online', 'both'] as const;
export type RedemptionChannel = (typeof REDEMPTION_CHANNELS)[number];

/** `air` makes a WalletB flight; the others a WalletB transit object of that type. */
export const TRANSIT_TYPES = ['air', 'train', 'bus', 'boat', 'generic'] as const;
export type TransitType = (typeof TRANSIT_TYPES)[number];

export const BARCODE_FORMATS = ['QR', 'PDF417', 'Aztec', 'Code128'] as const;
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];

interface KindField {
  key: string;
  value?: unknown;
  dateStyle?: string;
  timeStyle?: string;
}

/** What the rules read of a pass's metadata (the request DTO and the stored JSON both fit). */
export interface KindMetadata {
  passType?: PassType;
  topField?: KindField;
  headerFields?: KindField[];
  primaryFields?: KindField[];
  secondaryFields?: KindField[];
  auxiliaryFields?: KindField[];
  backFields?: { key: string }[];
  barcodeFormat?: BarcodeFormat;
  qrUrl?: string;
  relevantDate?: string;
  expirationDate?: string;
  event?: object;
  offer?: object;
  transit?: KindTransit;
  localizations?: unknown;
}

/** What the rules read of a boarding pass's trip. */
interface KindTransit {
  transitType?: string;
  number?: string;
  origin?: { code?: string };
  destination?: { code?: string };
}

/**
 * How many fields each slot holds, per style (Apple's "Wallet Developer Guide", pass design:
 * up to three header fields, one primary field (two on a boarding pass), up to four secondary
 * and four auxiliary fields (five on a boarding pass); on store cards, coupons and generic
 * passes no more than four secondary and auxiliary fields together).
 */
export function slotLimit(passType: PassType, slot: FaceSlot): number {
  switch (slot) {
    case 'headerFields':
      return 3;
    case 'primaryFields':
      return passType === 'boardingPass' ? 2 : 1;
    case 'secondaryFields':
      return 4;
    case 'auxiliaryFields':
      return passType === 'boardingPass' ? 5 : 4;
  }
}

/** The styles whose secondary and auxiliary fields share one row budget. */
const SHARED_ROW_STYLES: ReadonlySet<PassType> = new Set(['storeCard', 'coupon', 'generic']);
const SHARED_ROW_LIMIT = 4;

/** Apple's Code128 encodes ASCII only. */
const isAscii = (text: string): boolean => [...text].every((c) => c.charCodeAt(0) < 0x80);

export function passTypeOf(metadata: KindMetadata | null | undefined): PassType {
  return metadata?.passType ?? DEFAULT_PASS_TYPE;
}

const PREFIX = 'passMetadata';

/** "a storeCard", "an eventTicket". */
function aOrAn(passType: string): string {
  return `${/^[aeiou]/.test(passType) ? 'an' : 'a'} ${passType}`;
}

/**
 * The rules of DESIGN §9 that span more than one field of `passMetadata` (each field's own
 * shape is the DTO's): slot limits per style, field keys unique across the pass, dates where a
 * field has a date or time style, the block the style requires and no other style's block, and
 * Code128's ASCII. Throws INVALID_INPUT keyed by the field's path.
 */
export function assertPassKind(metadata: KindMetadata): void {
  const passType = passTypeOf(metadata);
  assertSlotLimits(passType, metadata);
  assertUniqueKeys(metadata);
  assertDateFields(metadata);
  for (const key of ['relevantDate', 'expirationDate'] as const) {
    if (metadata[key] !== undefined && !isIsoDateTime(metadata[key])) {
      throw new InvalidInputError({ [`${PREFIX}.${key}`]: ISO_MESSAGE });
    }
  }
  assertKindBlocks(passType, metadata);
  if (passType === 'boardingPass' && metadata.transit?.transitType === 'air') {
    assertFlight(metadata.transit);
  }
  const faceKeys = new Set(
    fieldsWithPaths(metadata)
      .filter(([path]) => !path.startsWith(`${PREFIX}.backFields`))
      .map(([, field]) => field.key),
  );
  const backKeys = new Set((metadata.backFields ?? []).map((field) => field.key));
  assertLocalizations(metadata.localizations, { faceKeys, backKeys });
  if (metadata.barcodeFormat === 'Code128' && !isAscii(metadata.qrUrl ?? '')) {
    throw new InvalidInputError({
      [`${PREFIX}.qrUrl`]: 'must be ASCII text for a Code128 barcode',
    });
  }
}

/**
 * A flight's marketing carrier and number as `transit.number` writes them: the airline's IATA
 * designator (two characters, not both digits: `BA`, `U2`) or ICAO one (three letters: `EZY`),
 * then the flight number's one to four digits (`BA123`, `EZY 8751`). Null when it is not one.
 */
export function parseFlightNumber(
  number: string,
): { iata: string; digits: string } | { icao: string; digits: string } | null {
  const text = number.trim().toUpperCase();
  const icao = /^([A-Z]{3}) ?(\d{1,4})$/.exec(text);
  if (icao !== null) return { icao: icao[1], digits: icao[2] };
  const iata = /^([A-Z0-9]{2}) ?(\d{1,4})$/.exec(text);
  if (iata !== null && !/^\d{2}$/.test(iata[1])) return { iata: iata[1], digits: iata[2] };
  return null;
}

/** An airport's IATA code: three letters. */
export const isAirportCode = (code: string | undefined): boolean =>
  code !== undefined && /^[A-Za-z]{3}$/.test(code);

/**
 * A flight needs what both wallets show of one: the carrier and flight number, and the airports'
 * IATA codes (WalletB's flight class refuses a flight without them).
 */
function assertFlight(transit: KindTransit): void {
  if (transit.number === undefined || parseFlightNumber(transit.number) === null) {
    throw new InvalidInputError({
      [`${PREFIX}.transit.number`]:
        "is required for an air trip: the airline's IATA or ICAO code and the flight number (e.g. BA123)",
    });
  }
  for (const end of ['origin', 'destination'] as const) {
    if (!isAirportCode(transit[end]?.code)) {
      throw new InvalidInputError({
        [`${PREFIX}.transit.${end}.code`]:
          "must be the airport's three-letter IATA code for an air trip",
      });
    }
  }
}

/** A Published pass keeps its kind: holders already have it in their wallets as that style. */
export function assertPassTypeKept(
  status: string,
  before: KindMetadata | null | undefined,
  after: KindMetadata,
): void {
  const was = passTypeOf(before);
  if (status === 'Published' && passTypeOf(after) !== was) {
    throw new ConflictError("A Published pass's passType cannot change", { passType: was });
  }
}

function assertSlotLimits(passType: PassType, metadata: KindMetadata): void {
  const header = (metadata.topField ? 1 : 0) + (metadata.headerFields?.length ?? 0);
  const counts: Record<FaceSlot, number> = {
    headerFields: header,
    primaryFields: metadata.primaryFields?.length ?? 0,
    secondaryFields: metadata.secondaryFields?.length ?? 0,
    auxiliaryFields: metadata.auxiliaryFields?.length ?? 0,
  };
  for (const slot of Object.keys(counts) as FaceSlot[]) {
    const limit = slotLimit(passType, slot);
    if (counts[slot] > limit) {
      const withTop = slot === 'headerFields' && metadata.topField ? ', topField included' : '';
      throw new InvalidInputError({
        [`${PREFIX}.${slot}`]: `${aOrAn(passType)} has at most ${limit} ${slot}${withTop} (${counts[slot]} given)`,
      });
    }
  }
  const rows = counts.secondaryFields + counts.auxiliaryFields;
  if (SHARED_ROW_STYLES.has(passType) && rows > SHARED_ROW_LIMIT) {
    throw new InvalidInputError({
      [`${PREFIX}.auxiliaryFields`]: `${aOrAn(passType)} has at most ${SHARED_ROW_LIMIT} secondaryFields and auxiliaryFields together (${rows} given)`,
    });
  }
}

/** Every field of the pass, front and back, with its path in the request. */
function fieldsWithPaths(metadata: KindMetadata): [string, { key: string }][] {
  const fields: [string, { key: string }][] = [];
  if (metadata.topField) fields.push([`${PREFIX}.topField`, metadata.topField]);
  for (const slot of [
    'headerFields',
    'primaryFields',
    'secondaryFields',
    'auxiliaryFields',
    'backFields',
  ] as const) {
    metadata[slot]?.forEach((field, i) => fields.push([`${PREFIX}.${slot}[${i}]`, field]));
  }
  return fields;
}

function assertUniqueKeys(metadata: KindMetadata): void {
  const seen = new Set<string>();
  for (const [path, field] of fieldsWithPaths(metadata)) {
    if (seen.has(field.key))
      throw new InvalidInputError({ [`${path}.key`]: 'is used by another field of the pass' });
    seen.add(field.key);
  }
}

function assertDateFields(metadata: KindMetadata): void {
  for (const [path, field] of fieldsWithPaths(metadata)) {
    const { dateStyle, timeStyle, value } = field as KindField;
    if ((dateStyle !== undefined || timeStyle !== undefined) && !isIsoDateTime(value)) {
      throw new InvalidInputError({
        [`${path}.value`]: `${ISO_MESSAGE} when dateStyle or timeStyle is set`,
      });
    }
  }
}

function assertKindBlocks(passType: PassType, metadata: KindMetadata): void {
  for (const [style, block] of Object.entries(KIND_BLOCKS) as [PassType, KindBlock][]) {
    const present = metadata[block] !== undefined && metadata[block] !== null;
    if (style === passType && !present) {
      throw new InvalidInputError({ [`${PREFIX}.${block}`]: `is required for ${aOrAn(passType)}` });
    }
    if (style !== passType && present) {
      throw new InvalidInputError({
        [`${PREFIX}.${block}`]: `is for ${aOrAn(style)}, not ${aOrAn(passType)}`,
      });
    }
  }
}

/** An image of the poster event ticket (iOS 26): `artwork.png` and its @2x/@3x. */
export const isArtworkImage = (fileName: string): boolean =>
  /^artwork(@[23]x)?\.png$/.test(fileName);

/** What Wallet requires of a poster event ticket's venue besides its name. */
const POSTER_VENUE = ['venueRegion', 'venueRoom'] as const;

/**
 * An `artwork` image opts an eventTicket into the poster event ticket, which Wallet shows only
 * when the pass has every semantic tag the poster requires (eventName, venueName,
 * venueRegionName, venueRoom); lacking one it silently shows the classic ticket, so the API
 * says so instead. No other style has a poster to show it on.
 */
export function assertPosterArtwork(
  metadata: KindMetadata & { event?: Partial<Record<(typeof POSTER_VENUE)[number], unknown>> },
  fileNames: readonly string[],
): void {
  if (!fileNames.some(isArtworkImage)) return;
  const passType = passTypeOf(metadata);
  if (passType !== 'eventTicket') {
    throw new InvalidInputError({
      uploadInfoList: `artwork.png is the picture of a poster event ticket; ${aOrAn(passType)} has none`,
    });
  }
  for (const key of POSTER_VENUE) {
    const value = metadata.event?.[key];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new InvalidInputError({
        [`${PREFIX}.event.${key}`]:
          'is required with an artwork image: Wallet shows a poster event ticket only with it',
      });
    }
  }
}

type FaceMetadata = Pick<
  PassMetadataDto,
  'topField' | 'headerFields' | 'primaryFields' | 'secondaryFields' | 'auxiliaryFields'
>;

/**
 * The face fields of a pass in the order WalletA shows them: the header (topField first), the
 * primary, the secondary and the auxiliary fields.
 */
export function faceFieldsOf(metadata: FaceMetadata): FieldDto[] {
  return [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.headerFields ?? []),
    ...(metadata.primaryFields ?? []),
    ...(metadata.secondaryFields ?? []),
    ...(metadata.auxiliaryFields ?? []),
  ];
}

/**
 * Face fields whose key (in any case) names something both wallets have a place for: a ticket's
 * seat, a passenger's name (WalletA semantic tags, WalletB class properties), so a seat is a
 * seat on both. The first name of a role that the pass has a field of counts.
 */
export const FIELD_ROLES = {
  person: ['passenger', 'name'],
  seat: ['seat'],
  row: ['row'],
  section: ['section'],
  gate: ['gate'],
  boardingGroup: ['boardingGroup'],
  confirmationCode: ['confirmationCode'],
  coach: ['coach'],
  platform: ['platform'],
} as const;
export type FieldRole = keyof typeof FIELD_ROLES;

/**
 * The value of the face field that plays `role`: the holder's (`values`), else the pass's;
 * undefined when the pass has no such field or its value is blank.
 */
export function fieldRoleValue(
  metadata: FaceMetadata,
  values: Record<string, string>,
  role: FieldRole,
): string | undefined {
  const fields = faceFieldsOf(metadata);
  for (const name of FIELD_ROLES[role]) {
    const field = fields.find((item) => item.key.toLowerCase() === name.toLowerCase());
    if (field === undefined) continue;
    const text = Object.prototype.hasOwnProperty.call(values, field.key)
      ? values[field.key]
      : field.value;
    return text.trim() === '' ? undefined : text;
  }
  return undefined;
}
