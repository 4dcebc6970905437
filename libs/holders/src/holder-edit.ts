import {
  nfcMessageProblem,
  type Pass,
  holderChangeTime,
  type Holder,
  type HolderFieldValues,
} from '@app/passes';
import {
  barcodeProblem,
  KINDS,
  PASS_TYPES,
  passTypeOf,
  type PassengerName,
  faceFieldsOf,
} from '@app/kinds';
import { MAX_FIELD_VALUE_LENGTH } from './holder-input.dto';
import {
  attributeCountProblem,
  MAX_TAGS,
  mergeAttributes,
  normalTags,
  sameTargeting,
} from './holder-targeting';

/** What a holder shows on its pass; a change of any of them moves `version` on. */
export type HolderVisible = Pick<
  Holder,
  | 'fieldValues'
  | 'barcodeValue'
  | 'barcodeText'
  | 'relevantDate'
  | 'expirationDate'
  | 'passengerName'
  | 'nfcMessage'
>;

/** What audiences read of a holder besides its field values; never on the pass. */
export type HolderTargeting = Pick<Holder, 'tags' | 'attributes'>;

/**
 * A change of one holder as PATCH reads its body (a PATCH body is one; a bulk change makes one
 * per holder): an absent field keeps the holder's value; `fieldValues` merges by key (a null
 * value: back to the pass's), `attributes` merges by key (a null value removes the key), `tags`
 * replaces the list; a null barcode or date goes back to the pass's, a null passenger is none.
 */
export interface HolderEdit {
  externalId?: string;
  fieldValues?: Readonly<Record<string, unknown>> | null;
  barcodeValue?: string | null;
  barcodeText?: string | null;
  relevantDate?: string | null;
  expirationDate?: string | null;
  passengerName?: PassengerName | null;
  nfcMessage?: string | null;
  tags?: readonly string[];
  attributes?: Readonly<Record<string, unknown>> | null;
}

/** What an edit does to a holder, before anything is written. */
export type HolderEditResult =
  /** Nothing new: nothing is written, no event, no version, no push. */
  | { kind: 'unchanged' }
  /** The holder would carry more tags or attributes than allowed (`problems` keyed like PATCH). */
  | { kind: 'refused'; problems: Record<string, string> }
  | {
      kind: 'changed';
      /** The columns to write. */
      written: Partial<Holder>;
      /** What the holder sees changed: its version moved on, its wallets must hear of it. */
      visibleChange: boolean;
      /** Its tags or attributes changed (audiences' rows must be rewritten). */
      targetingChange: boolean;
    };

/**
 * The one rule of how a holder changes (PATCH and bulk changes): the values after `edit`, whether
 * the holder sees the change, and the columns to write. `version` moves on only on a visible
 * change; `updatedTime` then lands in a later second than before (the package's Last-Modified),
 * and an invisible change never moves it back before a time a visible one set ahead of the clock.
 */
export function editHolder(
  holder: Holder,
  edit: HolderEdit,
  actorId: string | null,
  now: Date,
): HolderEditResult {
  const next: HolderVisible = {
    fieldValues: mergeFieldValues(holder.fieldValues, edit.fieldValues),
    barcodeValue: edit.barcodeValue === undefined ? holder.barcodeValue : edit.barcodeValue,
    barcodeText: edit.barcodeText === undefined ? holder.barcodeText : edit.barcodeText,
    relevantDate: edit.relevantDate === undefined ? holder.relevantDate : edit.relevantDate,
    expirationDate: edit.expirationDate === undefined ? holder.expirationDate : edit.expirationDate,
    passengerName:
      edit.passengerName === undefined
        ? holder.passengerName
        : edit.passengerName && {
            givenName: edit.passengerName.givenName,
            familyName: edit.passengerName.familyName,
          },
    nfcMessage: edit.nfcMessage === undefined ? holder.nfcMessage : edit.nfcMessage,
  };
  const targeting = targetingOf(holder, edit);
  const problems = {
    ...attributeCountProblem(targeting.attributes),
    ...(targeting.tags.length > MAX_TAGS
      ? { tags: `must have at most ${MAX_TAGS} different tags` }
      : {}),
  };
  if (Object.keys(problems).length > 0) return { kind: 'refused', problems };
  const visibleChange = !sameVisible(holder, next);
  const targetingChange = !sameTargeting(holder, targeting);
  const externalId = edit.externalId ?? holder.externalId;
  // Nothing new (a retried request, a client sending the holder back as it is): nothing is
  // written, so no event, no version, no push, and updatedTime keeps saying when it changed.
  if (!visibleChange && !targetingChange && externalId === holder.externalId) {
    return { kind: 'unchanged' };
  }
  const written: Partial<Holder> = {
    ...next,
    ...targeting,
    externalId,
    updatedBy: actorId,
    updatedTime: visibleChange
      ? holderChangeTime(holder.updatedTime, now)
      : new Date(Math.max(holder.updatedTime.getTime(), now.getTime())),
    ...(visibleChange ? { version: holder.version + 1 } : {}),
  };
  return { kind: 'changed', written, visibleChange, targetingChange };
}

/**
 * A holder's tags and attributes after an edit: `tags` replaces the list, `attributes` merges by
 * key (null removes one); absent, they stay as they are. An import row changes them the same
 * way (docs/decisions.md, "Audiences"): an import of points does not wipe a CRM's tags.
 */
export function targetingOf(
  current: HolderTargeting,
  edit: Pick<HolderEdit, 'tags' | 'attributes'>,
): HolderTargeting {
  return {
    tags: edit.tags === undefined ? current.tags : normalTags(edit.tags),
    attributes: mergeAttributes(current.attributes, edit.attributes),
  };
}

/**
 * `current` with `input` merged in by key: a string sets its key, anything else removes it.
 * Merged as attributes are (`mergeAttributes`): a face field's key may be any name.
 */
export function mergeFieldValues(
  current: HolderFieldValues,
  input: Readonly<Record<string, unknown>> | null | undefined,
): HolderFieldValues {
  if (input === undefined) return current;
  if (input === null) return {};
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string') merged.set(key, value);
    else merged.delete(key);
  }
  return Object.fromEntries(merged);
}

export const sameVisible = (a: HolderVisible, b: HolderVisible): boolean =>
  a.barcodeValue === b.barcodeValue &&
  a.barcodeText === b.barcodeText &&
  a.relevantDate === b.relevantDate &&
  a.expirationDate === b.expirationDate &&
  a.nfcMessage === b.nfcMessage &&
  samePassenger(a.passengerName, b.passengerName) &&
  JSON.stringify(sortedEntries(a.fieldValues)) === JSON.stringify(sortedEntries(b.fieldValues));

const samePassenger = (a: PassengerName | null, b: PassengerName | null): boolean =>
  a?.givenName === b?.givenName && a?.familyName === b?.familyName;

const sortedEntries = (values: HolderFieldValues): [string, string][] =>
  Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Keys of the pass fields a holder may set: its face fields (topField, header, primary, ...). */
export function holderFieldKeys(pass: Pick<Pass, 'passMetadata'>): string[] {
  return faceFieldsOf(pass.passMetadata).map(({ key }) => key);
}

/**
 * Problems of `fieldValues`, keyed `<at>.<key>`: a key of no face field of the pass, a value
 * that is not a string (null too unless `nullClears`), or longer than 2,000.
 */
export function fieldValueProblems(
  pass: Pick<Pass, 'passMetadata'>,
  fieldValues: Readonly<Record<string, unknown>> | null | undefined,
  nullClears: boolean,
  keys = holderFieldKeys(pass),
  at = 'fieldValues',
): Record<string, string> | undefined {
  if (fieldValues === undefined || fieldValues === null) return undefined;
  const problems: Record<string, string> = {};
  for (const [key, value] of Object.entries(fieldValues)) {
    const path = `${at}.${key}`;
    if (!keys.includes(key)) {
      problems[path] = notAFieldOf(keys);
    } else if (value === null && nullClears) {
      continue;
    } else if (typeof value !== 'string') {
      problems[path] = 'must be a string';
    } else if (value.length > MAX_FIELD_VALUE_LENGTH) {
      problems[path] = `must be shorter than or equal to ${MAX_FIELD_VALUE_LENGTH} characters`;
    }
  }
  return Object.keys(problems).length > 0 ? problems : undefined;
}

/**
 * A holder's own barcode message the pass's format cannot carry (`barcodeValue`: an EAN13 pass
 * needs 13 digits with their check digit, ...), as the pass's `qrUrl` is checked. Null or absent:
 * the pass's, already checked.
 */
export function barcodeValueProblems(
  pass: Pick<Pass, 'passMetadata'>,
  barcodeValue: string | null | undefined,
): Record<string, string> {
  if (barcodeValue === null || barcodeValue === undefined) return {};
  const problem = barcodeProblem(pass.passMetadata.barcodeFormat, barcodeValue);
  return problem === null ? {} : { barcodeValue: problem };
}

/** The kinds whose holders have a passenger (a boarding pass's), as a message names them. */
const WITH_PASSENGER = PASS_TYPES.filter((type) => KINDS[type].passenger).join(' or a ');

/**
 * A passenger is the holder's of a kind that has one (its unit's `passenger`): on another
 * kind's holder it would show nowhere, so it is refused rather than kept.
 */
export function passengerNameProblems(
  pass: Pick<Pass, 'passMetadata'>,
  passengerName: unknown,
): Record<string, string> | undefined {
  if (passengerName === undefined || passengerName === null) return undefined;
  const passType = passTypeOf(pass.passMetadata);
  return KINDS[passType].passenger
    ? undefined
    : { passengerName: `is for a holder of a ${WITH_PASSENGER}; this pass is a ${passType}` };
}

/**
 * What a copy of the pass hands terminals over NFC, on both wallets and in the holder's answer:
 * the holder's own message, else the pass's; null for a pass without NFC.
 */
export function shownNfcMessage(
  nfc: { message: string } | null | undefined,
  holderMessage: string | null | undefined,
): string | null {
  return nfc ? (holderMessage ?? nfc.message) : null;
}

/**
 * A holder's own NFC message has the pass's limits (1–64 bytes of UTF-8), and is read only from
 * a pass with NFC: on another it would reach no terminal, so it is refused rather than kept, as
 * a passenger is on a pass of another kind. The DTO has checked that it is a string.
 */
export function nfcMessageProblems(
  pass: Pick<Pass, 'passMetadata'>,
  nfcMessage: string | null | undefined,
): Record<string, string> | undefined {
  if (nfcMessage === undefined || nfcMessage === null) return undefined;
  const problem = nfcMessageProblem(nfcMessage);
  if (problem !== null) return { nfcMessage: problem };
  return pass.passMetadata.nfc
    ? undefined
    : { nfcMessage: 'is for a pass with passMetadata.nfc; this pass has none' };
}

/** Why a key is not one of the pass's face fields, naming those it has. */
export function notAFieldOf(keys: readonly string[]): string {
  return keys.length === 0
    ? 'is not a field of the pass: it has no face fields'
    : `is not a field of the pass; its face fields' keys are ${keys.join(', ')}`;
}
