import {
  addDecimals,
  exactNumber,
  formatDecimal,
  MAX_FRACTION_DIGITS,
  MAX_INTEGER_DIGITS,
  numberDecimal,
  parseDecimal,
} from '@app/core';
import {
  type Pass,
  faceFieldsOf,
  type AttributeValue,
  type Holder,
  type HolderAttributes,
} from '@app/passes';
import {
  fieldValueProblems,
  holderFieldKeys,
  notAFieldOf,
  type HolderEdit,
  ATTRIBUTE_KEY_PATTERN,
  attributeCountProblem,
  attributeProblems,
  normalTags,
  tagProblems,
} from '@app/holders';

/** The most holders a bulk change names by id (as a notification's `holderIds`). */
export const MAX_BULK_HOLDER_IDS = 1000;

/** Whom a bulk change reaches: exactly one of these. */
export const BULK_TARGETS = ['audience', 'segmentId', 'holderIds'] as const;

/** The change part of a bulk change's body, as the DTO passes it (shapes checked, rules not). */
export interface BulkChangeInput {
  set?: {
    fieldValues?: Readonly<Record<string, unknown>> | null;
    attributes?: Readonly<Record<string, unknown>> | null;
    barcodeText?: string | null;
  } | null;
  addTags?: readonly unknown[] | null;
  removeTags?: readonly unknown[] | null;
  increment?: Readonly<Record<string, unknown>> | null;
}

/**
 * What a bulk change does to each holder, as checked and kept: the request's `set`, `addTags`
 * and `removeTags`, and its `increment` split by what each key names (decided once, against the
 * pass as it was when the change was made, so a later change of the pass cannot turn a field
 * increment into an attribute increment half-way).
 */
export interface BulkChanges {
  set: {
    fieldValues?: Record<string, string | null>;
    attributes?: Record<string, AttributeValue | null>;
    barcodeText?: string | null;
  };
  addTags: string[];
  removeTags: string[];
  /**
   * Face fields of the pass to add to, by key. Each number is added as its shortest decimal
   * text (`numberDecimal`: 0.1 adds 0.1, not its binary expansion).
   */
  incrementFields: Record<string, number>;
  /** Attributes to add to, by key (added as the field increments are). */
  incrementAttributes: Record<string, number>;
}

const INCREMENT_DIGITS =
  `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point and ` +
  `${MAX_FRACTION_DIGITS} after it (a sum is written as a decimal text)`;

const ONE_TARGET = `give one of ${BULK_TARGETS.join(', ')}`;

/**
 * Exactly one target: none is a 400 on `audience` (as the audience routes say), more than one
 * a 400 on each given.
 */
export function bulkTargetProblems(
  input: Partial<Record<(typeof BULK_TARGETS)[number], unknown>>,
): Record<string, string> {
  const given = BULK_TARGETS.filter((key) => input[key] !== undefined && input[key] !== null);
  if (given.length === 1) return {};
  if (given.length === 0) return { audience: ONE_TARGET };
  return Object.fromEntries(given.map((key) => [key, `${ONE_TARGET}, not more`]));
}

/**
 * Reads the change part of a bulk change against the pass, refusing it with every problem keyed
 * by its path: `set.fieldValues.<key>` (a face field of the pass, a text of at most 2,000, or
 * null: back to the pass's value), `set.attributes.<key>` (the attribute rules, null removes),
 * `addTags.<i>` / `removeTags.<i>` (the tag rules; one tag not both added and removed),
 * `increment.<key>` (a finite number of at most 30 digits before the point and 30 after it, as
 * JavaScript writes it, so that it adds exactly; a face field of the pass if it is one, else an
 * attribute key; not also in `set`), and `set` when nothing would change.
 */
export function readBulkChanges(
  pass: Pick<Pass, 'passMetadata'>,
  input: BulkChangeInput,
): { changes: BulkChanges; problems?: undefined } | { problems: Record<string, string> } {
  const keys = holderFieldKeys(pass);
  const set = input.set ?? {};
  const problems: Record<string, string> = {};
  if (set.fieldValues === null) {
    problems['set.fieldValues'] = "must be an object (a key set to null goes back to the pass's)";
  } else {
    Object.assign(
      problems,
      fieldValueProblems(pass, set.fieldValues, true, keys, 'set.fieldValues'),
    );
  }
  if (set.attributes === null) {
    problems['set.attributes'] = 'must be an object (a key set to null removes it)';
  } else if (set.attributes !== undefined) {
    const attributes = attributeProblems(set.attributes, true, 'set.attributes');
    Object.assign(problems, attributes);
    if (Object.keys(attributes).length === 0) {
      // Checked above: every value given is an attribute value or null.
      const given = Object.entries(set.attributes).filter(([, value]) => value !== null);
      const attributesSet = Object.fromEntries(given) as HolderAttributes;
      Object.assign(problems, attributeCountProblem(attributesSet, 'set.attributes'));
    }
  }
  const addTags = input.addTags ?? [];
  const removeTags = input.removeTags ?? [];
  Object.assign(problems, tagProblems(addTags, 'addTags'), tagProblems(removeTags, 'removeTags'));
  removeTags.forEach((tag, index) => {
    if (addTags.includes(tag)) problems[`removeTags.${index}`] ??= 'is also in addTags';
  });
  // Entries, not objects assigned into: every key is the client's (a face field may be keyed
  // `constructor`).
  const incrementFields: [string, number][] = [];
  const incrementAttributes: [string, number][] = [];
  const setKeys = new Set([
    ...Object.keys(set.fieldValues ?? {}),
    ...Object.keys(set.attributes ?? {}),
  ]);
  for (const [key, by] of Object.entries(input.increment ?? {})) {
    const at = `increment.${key}`;
    if (typeof by !== 'number' || !Number.isFinite(by)) {
      problems[at] = 'must be a finite number';
    } else if (formatDecimal(numberDecimal(by)!) === null) {
      problems[at] = INCREMENT_DIGITS;
    } else if (setKeys.has(key)) {
      problems[at] = 'is also in set: change a key one way only';
    } else if (keys.includes(key)) {
      incrementFields.push([key, by]);
    } else if (ATTRIBUTE_KEY_PATTERN.test(key)) {
      incrementAttributes.push([key, by]);
    } else {
      problems[at] =
        `${notAFieldOf(keys)}; nor is it an attribute key (keys match ${ATTRIBUTE_KEY_PATTERN.source})`;
    }
  }
  if (Object.keys(problems).length > 0) return { problems };
  const changes: BulkChanges = {
    set: {
      ...(set.fieldValues === undefined
        ? {}
        : { fieldValues: set.fieldValues as Record<string, string | null> }),
      ...(set.attributes === undefined
        ? {}
        : { attributes: set.attributes as Record<string, AttributeValue | null> }),
      ...(set.barcodeText === undefined ? {} : { barcodeText: set.barcodeText }),
    },
    addTags: normalTags(addTags as string[]),
    removeTags: normalTags(removeTags as string[]),
    incrementFields: Object.fromEntries(incrementFields),
    incrementAttributes: Object.fromEntries(incrementAttributes),
  };
  if (!changesAnything(changes)) {
    return { problems: { set: 'give at least one change: set, addTags, removeTags or increment' } };
  }
  return { changes };
}

function changesAnything(changes: BulkChanges): boolean {
  const { set } = changes;
  return (
    Object.keys(set.fieldValues ?? {}).length > 0 ||
    Object.keys(set.attributes ?? {}).length > 0 ||
    set.barcodeText !== undefined ||
    changes.addTags.length > 0 ||
    changes.removeTags.length > 0 ||
    Object.keys(changes.incrementFields).length > 0 ||
    Object.keys(changes.incrementAttributes).length > 0
  );
}

/**
 * Whether the change can change what holders see on their passes (a face field value or the
 * barcode text), so that the wallets must hear of it; tags and attributes are never shown.
 */
export function showsOnPass(changes: BulkChanges): boolean {
  return (
    Object.keys(changes.set.fieldValues ?? {}).length > 0 ||
    changes.set.barcodeText !== undefined ||
    Object.keys(changes.incrementFields).length > 0
  );
}

/** The pass's own value of each face field, by key: what a holder without its own shows. */
export function fieldDefaultsOf(pass: Pick<Pass, 'passMetadata'>): ReadonlyMap<string, string> {
  return new Map(faceFieldsOf(pass.passMetadata).map(({ key, value }) => [key, value]));
}

/**
 * What a bulk change makes of one holder, as a PATCH body would say it (then applied by
 * `editHolder`, exactly as a PATCH): `set` as given, tags added and removed, and each value to
 * increment replaced by its exact sum (`addText`, `addValue`). `null` when a value to increment
 * is not a number (the holder's own value, else the pass's for a face field; an attribute the
 * holder lacks is no number), or the sum has no decimal text (more than 30 digits before or
 * after the point): the holder is then left as it is rather than given a wrong value.
 *
 * `fieldDefaults` are the pass's face fields now; a `set` field value whose field the pass no
 * longer has is left out (PATCH would refuse it), and so is its increment.
 */
export function bulkEdit(
  changes: BulkChanges,
  holder: Pick<Holder, 'fieldValues' | 'attributes' | 'tags'>,
  fieldDefaults: ReadonlyMap<string, string>,
): HolderEdit | null {
  const edit: HolderEdit = {};
  // Maps: keys are the client's, and a holder's values are read by own key only.
  const fieldValues = new Map<string, string | null>();
  for (const [key, value] of Object.entries(changes.set.fieldValues ?? {})) {
    if (fieldDefaults.has(key)) fieldValues.set(key, value);
  }
  for (const [key, by] of Object.entries(changes.incrementFields)) {
    if (!fieldDefaults.has(key)) continue;
    const text = Object.hasOwn(holder.fieldValues, key)
      ? holder.fieldValues[key]
      : fieldDefaults.get(key)!;
    const sum = addText(text, by);
    if (sum === null) return null;
    fieldValues.set(key, sum);
  }
  if (fieldValues.size > 0) edit.fieldValues = Object.fromEntries(fieldValues);

  const attributes = new Map(Object.entries(changes.set.attributes ?? {}));
  for (const [key, by] of Object.entries(changes.incrementAttributes)) {
    const current = Object.hasOwn(holder.attributes, key) ? holder.attributes[key] : undefined;
    const sum = current === undefined ? null : addValue(current, by);
    if (sum === null) return null;
    attributes.set(key, sum);
  }
  if (attributes.size > 0) edit.attributes = Object.fromEntries(attributes);

  if (changes.set.barcodeText !== undefined) edit.barcodeText = changes.set.barcodeText;
  if (changes.addTags.length > 0 || changes.removeTags.length > 0) {
    const removed = new Set(changes.removeTags);
    edit.tags = [...holder.tags, ...changes.addTags].filter((tag) => !removed.has(tag));
  }
  return edit;
}

/**
 * `text + by` as text, when `text` is a decimal number (the rule audiences compare by), added
 * exactly: with as many decimals as the more precise of the two, so a value's own precision
 * stays ("12.50" + 1 is "13.50") and binary noise never shows (0.1 + 0.2 is "0.3"). Null when
 * `text` is no decimal number or the sum is none (more than 30 digits before the point).
 */
export function addText(text: string, by: number): string | null {
  const value = parseDecimal(text);
  const operand = numberDecimal(by);
  if (value === null || operand === null) return null;
  return formatDecimal(addDecimals(value, operand));
}

/**
 * An attribute's `value + by`, when the value is a number or a text that is a decimal number
 * (as audiences compare it), added exactly: a number when a JSON number holds the sum exactly
 * (`exactNumber`: a safe integer, or a fraction whose shortest text is the sum), else the sum's
 * decimal text (9007199254740991 + 2 is "9007199254740993"), which audiences still read as that
 * number. Null otherwise: a boolean, a text that is no number, a value or a sum beyond a decimal
 * text's 30 digits before or after the point.
 */
export function addValue(value: AttributeValue, by: number): AttributeValue | null {
  if (typeof value === 'boolean') return null;
  const current = typeof value === 'number' ? numberDecimal(value) : parseDecimal(value);
  const operand = numberDecimal(by);
  if (current === null || operand === null) return null;
  const sum = addDecimals(current, operand);
  const text = formatDecimal(sum);
  if (text === null) return null;
  return exactNumber(sum) ?? text;
}
