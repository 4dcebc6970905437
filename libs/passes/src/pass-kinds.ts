import {
  ConflictError,
  InvalidInputError,
  ISO_DATE_TIME_MESSAGE as ISO_MESSAGE,
  isIsoDateTime,
} from '@app/core';
import {
  barcodeProblem,
  isAirportCode,
  readFlight,
  passTypeOf,
  type BarcodeFormat,
  type PassType,
  type BlockName,
  KINDS,
  ianaTimeZone,
} from '@app/kinds';
import { MAX_UPCOMING_EVENTS } from './metadata/pass-kind.dto';
import { assertLocalizations } from './localizations';

/** The face fields of a pass, in WalletA's order (also read by holders and audiences). */
export { faceFieldsOf } from '@app/kinds';

/** The face slots of a pass; `topField` is the first header field. */
export type FaceSlot = 'headerFields' | 'primaryFields' | 'secondaryFields' | 'auxiliaryFields';

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
  featuredActions?: { type: string }[];
}

/** What the rules read of an event ticket's event. */
interface KindEvent {
  upcoming?: { identifier?: unknown; startTime?: unknown; endTime?: unknown }[];
}

/** What the rules read of a boarding pass's trip. */
interface KindTransit {
  transitType?: string;
  carrier?: string;
  number?: string;
  origin?: { code?: string; timeZone?: string };
  destination?: { code?: string; timeZone?: string };
}

/**
 * How many fields each slot holds, per kind (its unit's `face`: Apple's "Wallet Developer
 * Guide", pass design).
 */
export function slotLimit(passType: PassType, slot: FaceSlot): number {
  return KINDS[passType].face[slot];
}

const PREFIX = 'passMetadata';

/** "a storeCard", "an eventTicket". */
function aOrAn(passType: string): string {
  return `${/^[aeiou]/.test(passType) ? 'an' : 'a'} ${passType}`;
}

/**
 * The rules of a kind that span more than one field of `passMetadata` (each field's own
 * shape is the DTO's): slot limits per style, field keys unique across the pass, dates where a
 * field has a date or time style, the block the style requires and no other style's block, the
 * barcode's message in its format (`kinds/barcode-formats.ts`) and each featured action's type
 * once. Throws INVALID_INPUT keyed by the field's path.
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
  if (passType === 'eventTicket') assertUpcoming(upcomingOf(metadata));
  if (passType === 'boardingPass' && metadata.transit !== undefined) {
    assertTimeZones(metadata.transit);
    if (metadata.transit.transitType === 'air') assertFlight(metadata.transit);
  }
  const faceKeys = new Set(
    fieldsWithPaths(metadata)
      .filter(([path]) => !path.startsWith(`${PREFIX}.backFields`))
      .map(([, field]) => field.key),
  );
  const backKeys = new Set((metadata.backFields ?? []).map((field) => field.key));
  assertLocalizations(metadata.localizations, { faceKeys, backKeys });
  assertFeaturedActions(metadata.featuredActions ?? []);
  const barcode = barcodeProblem(metadata.barcodeFormat, metadata.qrUrl ?? '');
  if (barcode !== null) throw new InvalidInputError({ [`${PREFIX}.qrUrl`]: barcode });
}

/** A featured action's type is its identifier on the pass, which Apple wants unique. */
function assertFeaturedActions(actions: { type: string }[]): void {
  actions.forEach((action, index) => {
    if (actions.findIndex((other) => other.type === action.type) < index) {
      throw new InvalidInputError({
        [`${PREFIX}.featuredActions[${index}].type`]: 'is the type of another featured action',
      });
    }
  });
}

/**
 * A flight needs what both wallets show of one: the airline's code and the flight number, given
 * together (`LX318`) or apart (`carrier: "LX"`, `number: "318"`), and the airports' IATA codes
 * (WalletB's flight class refuses a flight without them).
 */
function assertFlight(transit: KindTransit): void {
  const read = readFlight(transit);
  if ('problem' in read) {
    throw new InvalidInputError({
      [`${PREFIX}.transit.${read.problem.field}`]: read.problem.message,
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

/** A trip's ends name their time zones by IANA name (`Europe/Zurich`), which both wallets take. */
function assertTimeZones(transit: KindTransit): void {
  for (const end of ['origin', 'destination'] as const) {
    const zone = transit[end]?.timeZone;
    if (zone !== undefined && ianaTimeZone(zone) === null) {
      throw new InvalidInputError({
        [`${PREFIX}.transit.${end}.timeZone`]:
          'must be an IANA time zone name, such as Europe/Zurich (not an offset)',
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
  const sharedRows = KINDS[passType].face.secondaryAndAuxiliary;
  if (sharedRows !== undefined && rows > sharedRows) {
    throw new InvalidInputError({
      [`${PREFIX}.auxiliaryFields`]: `${aOrAn(passType)} has at most ${sharedRows} secondaryFields and auxiliaryFields together (${rows} given)`,
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
  for (const [kind, { block }] of Object.entries(KINDS) as [
    PassType,
    { block: BlockName | null },
  ][]) {
    if (block === null) continue;
    const present = metadata[block] !== undefined && metadata[block] !== null;
    if (kind === passType && !present) {
      throw new InvalidInputError({ [`${PREFIX}.${block}`]: `is required for ${aOrAn(passType)}` });
    }
    if (kind !== passType && present) {
      // Upcoming events are what a request on another kind most likely meant to add.
      const upcoming = block === 'event' && upcomingOf(metadata) !== undefined;
      throw new InvalidInputError({
        [`${PREFIX}.${block}${upcoming ? '.upcoming' : ''}`]: `is for ${aOrAn(kind)}, not ${aOrAn(passType)}`,
      });
    }
  }
}

/** The upcoming events an event block carries (the block is a DTO or stored JSON). */
const upcomingOf = (metadata: KindMetadata): KindEvent['upcoming'] =>
  (metadata.event as KindEvent | undefined)?.upcoming;

/**
 * A festival's or a season ticket's events: at most 20, identifiers unique (each
 * is WalletA's entry `identifier`), ISO 8601 dates with an end not before the start. The DTO
 * checks each entry's shape; this holds for stored metadata too.
 */
function assertUpcoming(upcoming: KindEvent['upcoming']): void {
  if (upcoming === undefined) return;
  const path = `${PREFIX}.event.upcoming`;
  if (upcoming.length > MAX_UPCOMING_EVENTS) {
    throw new InvalidInputError({ [path]: `must have at most ${MAX_UPCOMING_EVENTS} events` });
  }
  const seen = new Set<unknown>();
  upcoming.forEach((event, index) => {
    const at = `${path}[${index}]`;
    if (seen.has(event.identifier)) {
      throw new InvalidInputError({
        [`${at}.identifier`]: 'is used by another upcoming event of the pass',
      });
    }
    seen.add(event.identifier);
    for (const key of ['startTime', 'endTime'] as const) {
      if ((key === 'startTime' || event[key] !== undefined) && !isIsoDateTime(event[key])) {
        throw new InvalidInputError({ [`${at}.${key}`]: ISO_MESSAGE });
      }
    }
    const { startTime, endTime } = event as { startTime: string; endTime?: string };
    if (endTime !== undefined && Date.parse(endTime) < Date.parse(startTime)) {
      throw new InvalidInputError({ [`${at}.endTime`]: 'must not be before its startTime' });
    }
  });
}

/** A poster's picture (iOS 26's poster event ticket, iOS 27's poster generic pass). */
export const isArtworkImage = (fileName: string): boolean =>
  /^artwork(@[23]x)?\.png$/.test(fileName);

/** What Wallet requires of a poster event ticket's venue besides its name. */
const POSTER_VENUE = ['venueRegion', 'venueRoom'] as const;

/**
 * An `artwork` image opts an eventTicket into the poster event ticket, which Wallet shows only
 * when the pass has every semantic tag the poster requires (eventName, venueName,
 * venueRegionName, venueRoom) and NFC (Apple's Pass Builder refuses a poster event ticket
 * without `nfc`); lacking one it silently shows the classic ticket, so the API says so instead.
 * The poster generic pass has no such requirement, and on a kind without a poster the artwork is
 * one more brand image its package leaves out (`passImagesOf`).
 */
export function assertPosterArtwork(
  metadata: KindMetadata & {
    event?: Partial<Record<(typeof POSTER_VENUE)[number], unknown>>;
    nfc?: object;
  },
  fileNames: readonly string[],
): void {
  if (passTypeOf(metadata) !== 'eventTicket' || !fileNames.some(isArtworkImage)) return;
  const problems: Record<string, string> = {};
  for (const key of POSTER_VENUE) {
    const value = metadata.event?.[key];
    if (typeof value !== 'string' || value.trim() === '') {
      problems[`${PREFIX}.event.${key}`] =
        'is required with an artwork image: Wallet shows a poster event ticket only with it';
    }
  }
  if (metadata.nfc === undefined || metadata.nfc === null) {
    problems[`${PREFIX}.nfc`] =
      'is required with an artwork image: Wallet shows a poster event ticket only to a pass ' +
      'that terminals can read over NFC';
  }
  if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
}
