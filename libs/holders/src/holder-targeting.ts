import { targetingValue } from './targeting-value';
import type { EntityManager } from 'typeorm';
import type { AttributeValue, Holder, HolderAttributes } from '@app/passes';

/** What a holder may carry for audiences. */
export const MAX_TAGS = 50;
export const TAG_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const TAG_RULE = 'must be 1 to 64 characters, each a letter, a digit or one of . _ : -';
export const MAX_ATTRIBUTES = 50;
export const ATTRIBUTE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const MAX_ATTRIBUTE_TEXT = 255;

/** Holders whose old rows are removed per statement. */
const HOLDERS_PER_STATEMENT = 500;
/** Rows inserted per statement: 7 values each, well under SQLite's 32,766 bound values. */
const ROWS_PER_INSERT = 500;
const VALUE_COLUMNS = '(holder_id, source, name, pass_id, value_type, text_value, number_value)';

/** Tags as they are kept and answered: without repeats, sorted (byte order, as they compare). */
export function normalTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Problems of a `tags` list, keyed `tags.<index>` (or `tags` for the list as a whole). */
export function tagProblems(tags: unknown, at = 'tags'): Record<string, string> {
  if (!Array.isArray(tags)) return { [at]: 'must be an array of tags' };
  const problems: Record<string, string> = {};
  tags.forEach((tag: unknown, index) => {
    if (typeof tag !== 'string' || !TAG_PATTERN.test(tag)) {
      problems[`${at}.${index}`] = TAG_RULE;
    }
  });
  if (Object.keys(problems).length === 0 && new Set(tags).size > MAX_TAGS) {
    problems[at] = `must have at most ${MAX_TAGS} different tags`;
  }
  return problems;
}

/**
 * Problems of an `attributes` object, keyed `attributes.<key>`: a key out of its pattern, a
 * value that is not a text of at most 255 characters, a finite number or a boolean (null too,
 * unless `nullRemoves`).
 */
export function attributeProblems(
  attributes: unknown,
  nullRemoves: boolean,
  at = 'attributes',
): Record<string, string> {
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    return { [at]: 'must be an object' };
  }
  const problems: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) {
    const path = `${at}.${key}`;
    if (!ATTRIBUTE_KEY_PATTERN.test(key)) {
      problems[path] = `is not an attribute key: keys must match ${ATTRIBUTE_KEY_PATTERN.source}`;
    } else if (value === null) {
      if (!nullRemoves) problems[path] = 'must be a text, a number or a boolean';
    } else if (typeof value === 'string') {
      if (value.length > MAX_ATTRIBUTE_TEXT) {
        problems[path] = `must be shorter than or equal to ${MAX_ATTRIBUTE_TEXT} characters`;
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) problems[path] = 'must be a finite number';
    } else if (typeof value !== 'boolean') {
      problems[path] = 'must be a text, a number or a boolean';
    }
  }
  return problems;
}

/**
 * `current` with `changes` merged in by key; a null value removes its key. Merged in a Map and
 * made an object of own entries: a key is only ever a key (`constructor`, even `__proto__`).
 */
export function mergeAttributes(
  current: HolderAttributes,
  changes: Readonly<Record<string, unknown>> | null | undefined,
): HolderAttributes {
  if (changes === undefined || changes === null) return current;
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value as AttributeValue);
  }
  return Object.fromEntries(merged);
}

/** The merged attributes' problem when there are too many keys (after the merge). */
export function attributeCountProblem(
  attributes: HolderAttributes,
  at = 'attributes',
): Record<string, string> {
  return Object.keys(attributes).length > MAX_ATTRIBUTES
    ? { [at]: `must have at most ${MAX_ATTRIBUTES} keys` }
    : {};
}

export function sameTargeting(
  a: Pick<Holder, 'tags' | 'attributes'>,
  b: Pick<Holder, 'tags' | 'attributes'>,
): boolean {
  return (
    a.tags.length === b.tags.length &&
    a.tags.every((tag, index) => tag === b.tags[index]) &&
    JSON.stringify(sortedEntries(a.attributes)) === JSON.stringify(sortedEntries(b.attributes))
  );
}

const sortedEntries = (values: Record<string, unknown>): [string, unknown][] =>
  Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** What audience queries read of a holder: its tags, attributes and own field values. */
export type TargetedHolder = Pick<Holder, 'id' | 'passId' | 'tags' | 'attributes' | 'fieldValues'>;

/**
 * Writes the rows audiences read (`holder_tag`, `holder_value`) for these holders as they now
 * are, in the caller's transaction: the one place that keeps them in step with the holder
 * rows. `fresh`: the holders were just inserted, so there are no old rows to remove.
 */
export async function writeTargetingRows(
  manager: EntityManager,
  holders: readonly TargetedHolder[],
  { fresh = false }: { fresh?: boolean } = {},
): Promise<void> {
  for (let at = 0; at < holders.length; at += HOLDERS_PER_STATEMENT) {
    const chunk = holders.slice(at, at + HOLDERS_PER_STATEMENT);
    if (!fresh) {
      const ids = chunk.map((holder) => holder.id);
      const marks = ids.map(() => '?').join(', ');
      await manager.query(`DELETE FROM holder_tag WHERE holder_id IN (${marks})`, ids);
      await manager.query(`DELETE FROM holder_value WHERE holder_id IN (${marks})`, ids);
    }
    const tags = chunk.flatMap((holder) =>
      holder.tags.map((tag) => [holder.id, tag, holder.passId]),
    );
    await insertRows(manager, 'INSERT INTO holder_tag (holder_id, tag, pass_id) VALUES ', tags);
    const values = chunk.flatMap((holder) => valueRows(holder));
    await insertRows(manager, `INSERT INTO holder_value ${VALUE_COLUMNS} VALUES `, values);
  }
}

async function insertRows(manager: EntityManager, insert: string, rows: unknown[][]) {
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    const slice = rows.slice(at, at + ROWS_PER_INSERT);
    const marks = `(${slice[0].map(() => '?').join(', ')})`;
    await manager.query(insert + slice.map(() => marks).join(', '), slice.flat());
  }
}

function valueRows(holder: TargetedHolder): unknown[][] {
  const rows: unknown[][] = [];
  const add = (source: 'a' | 'f', name: string, raw: AttributeValue) => {
    const value = targetingValue(raw);
    if (value === null) return;
    rows.push([
      holder.id,
      source,
      name,
      holder.passId,
      value.valueType,
      value.textValue,
      value.numberValue,
    ]);
  };
  for (const [name, value] of Object.entries(holder.attributes)) add('a', name, value);
  for (const [name, value] of Object.entries(holder.fieldValues)) add('f', name, value);
  return rows;
}
