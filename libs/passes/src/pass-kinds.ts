import {
  ConflictError,
  InvalidInputError,
  ISO_DATE_TIME_MESSAGE as ISO_MESSAGE,
  isIsoDateTime,
} from '@app/core';
import {
  barcodeProblem,
  KINDS,
  passTypeOf,
  type BlockName,
  type BlockProblem,
  type KindBlocks,
  type KindUnit,
  type PassType,
} from '@app/kinds';
import type { BackFieldDto, FieldDto, PassMetadataDto } from './metadata/pass-metadata.dto';
import { assertLocalizations } from './localizations';

/** The face fields of a pass, in WalletA's order (also read by holders and audiences). */
export { faceFieldsOf } from '@app/kinds';

/**
 * The pass metadata the rules of this file and the wallets' kind tables read, stored or a
 * request's: the request's own shape, so a field a rule reads is the field the API takes, and
 * every kind's block is in it.
 */
export type KindMetadata = Pick<
  PassMetadataDto,
  | 'passType'
  | 'topField'
  | 'headerFields'
  | 'primaryFields'
  | 'secondaryFields'
  | 'auxiliaryFields'
  | 'backFields'
  | 'barcodeFormat'
  | 'qrUrl'
  | 'relevantDate'
  | 'expirationDate'
  | BlockName
  | 'nfc'
  | 'localizations'
  | 'featuredActions'
>;

/** The face slots of a pass; `topField` is the first header field. */
export type FaceSlot = 'headerFields' | 'primaryFields' | 'secondaryFields' | 'auxiliaryFields';

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
 * kind's own rule over its block (its unit's `problem`: a flight's number, a festival's events),
 * the barcode's message in its format (`kinds/barcode-formats.ts`) and each featured action's
 * type once. Throws INVALID_INPUT keyed by the field's path.
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
  const problem = kindProblem(passType, metadata);
  if (problem !== null) {
    throw new InvalidInputError({
      [`${PREFIX}.${problem.block}.${problem.field}`]: problem.message,
    });
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

/** The kind's own rule over its block, when the pass has the block (else the rules refuse it). */
function kindProblem<K extends PassType>(
  type: K,
  metadata: KindMetadata,
): (BlockProblem & { block: BlockName }) | null {
  const unit: KindUnit<K> = KINDS[type];
  if (unit.block === null) return null;
  // The unit names its block, and KindBlocks says which DTO that block is.
  const block = metadata[unit.block] as KindBlocks[K] | undefined;
  if (block === undefined || block === null) return null;
  const problem = unit.problem(block);
  return problem === null ? null : { ...problem, block: unit.block };
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
function fieldsWithPaths(metadata: KindMetadata): [string, FieldDto | BackFieldDto][] {
  const fields: [string, FieldDto | BackFieldDto][] = [];
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
    // A back field has no style: its value is its links.
    const styled: Partial<Pick<FieldDto, 'dateStyle' | 'timeStyle'>> & { value: unknown } = field;
    const { dateStyle, timeStyle, value } = styled;
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

/** The upcoming events an event block carries. */
const upcomingOf = (metadata: KindMetadata) => metadata.event?.upcoming;

/** A poster's picture (iOS 26's poster event ticket, iOS 27's poster generic pass). */
export const isArtworkImage = (fileName: string): boolean =>
  /^artwork(@[23]x)?\.png$/.test(fileName);

/**
 * An `artwork` image opts a kind with a poster into it (its unit's `poster`), which Wallet shows
 * only when the pass has every field the poster requires and, where the poster needs it, NFC;
 * lacking one it silently shows the classic face, so the API says so instead. On a kind without
 * a poster the artwork is one more brand image its package leaves out (`passImagesOf`).
 */
export function assertPosterArtwork(metadata: KindMetadata, fileNames: readonly string[]): void {
  const unit = KINDS[passTypeOf(metadata)];
  const poster = unit.poster;
  if (poster === null || unit.block === null || !fileNames.some(isArtworkImage)) return;
  // The poster's needs are fields of its kind's own block.
  const block = metadata[unit.block] as Record<string, unknown> | undefined;
  const problems: Record<string, string> = {};
  for (const key of poster.needs) {
    const value = block?.[key];
    if (typeof value !== 'string' || value.trim() === '') {
      problems[`${PREFIX}.${unit.block}.${key}`] =
        `is required with an artwork image: Wallet shows a ${poster.name} only with it`;
    }
  }
  if (poster.needsNfc && (metadata.nfc === undefined || metadata.nfc === null)) {
    problems[`${PREFIX}.nfc`] =
      `is required with an artwork image: Wallet shows a ${poster.name} only to a pass ` +
      'that terminals can read over NFC';
  }
  if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
}
