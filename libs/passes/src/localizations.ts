import { InvalidInputError } from '@app/core';

/** One language's texts of a pass: what differs from the pass's own. */
export interface PassLocalization {
  description?: string;
  organizationName?: string;
  passName?: string;
  /** By field key: a face field's label and value, a back field's label. */
  fields?: Record<string, { label?: string; value?: string }>;
}

/** By BCP 47 language tag (`de`, `fr-CA`, `zh-Hant`). */
export type PassLocalizations = Record<string, PassLocalization>;

/**
 * One language's texts of the field keyed `key`, if it has any: an own key only, since a field
 * may be keyed `constructor` or `toString` and must not find Object.prototype's.
 */
export function fieldTexts(
  texts: PassLocalization,
  key: string,
): { label?: string; value?: string } | undefined {
  const fields = texts.fields;
  return fields !== undefined && Object.hasOwn(fields, key) ? fields[key] : undefined;
}

/**
 * Languages one pass may carry: every one is a `<lang>.lproj` in each package and a translated
 * value of each WalletB text, and the largest pass must still fit the request body limit.
 */
export const MAX_LOCALIZATIONS = 16;

/** A BCP 47 tag as Wallet's `.lproj` folders and Google's `language` take it. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

const TEXT_LIMITS = { description: 255, organizationName: 255, passName: 255 } as const;
const LABEL_LIMIT = 255;
const VALUE_LIMIT = 2000;

/** What the rules read of the pass: the keys of its face fields and of its back fields. */
export interface LocalizedPass {
  faceKeys: ReadonlySet<string>;
  backKeys: ReadonlySet<string>;
}

const PREFIX = 'passMetadata.localizations';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (path: string, message: string) => new InvalidInputError({ [path]: message });

/**
 * Checks `localizations` as the DTO cannot (its keys are the client's): tags, the texts' types
 * and lengths, and that each field it names is a field of the pass, its value a face field's
 * (a back field's value is its links). Throws INVALID_INPUT keyed by the path of the problem.
 */
export function assertLocalizations(localizations: unknown, pass: LocalizedPass): void {
  if (localizations === undefined || localizations === null) return;
  if (!isRecord(localizations)) throw invalid(PREFIX, 'must be an object keyed by language tag');
  const entries = Object.entries(localizations);
  if (entries.length > MAX_LOCALIZATIONS) {
    throw invalid(
      PREFIX,
      `must have at most ${MAX_LOCALIZATIONS} languages (${entries.length} given)`,
    );
  }
  for (const [language, localization] of entries) {
    const path = `${PREFIX}.${language}`;
    if (!LANGUAGE_TAG.test(language)) throw invalid(path, 'must be keyed by a BCP 47 language tag');
    if (!isRecord(localization)) throw invalid(path, 'must be an object');
    assertKnownKeys(localization, ['fields', ...Object.keys(TEXT_LIMITS)], path);
    for (const [key, limit] of Object.entries(TEXT_LIMITS)) {
      assertText(localization[key], `${path}.${key}`, limit);
    }
    const fields = localization.fields;
    if (fields === undefined) continue;
    if (!isRecord(fields)) throw invalid(`${path}.fields`, 'must be an object keyed by field key');
    for (const [key, texts] of Object.entries(fields)) {
      const fieldPath = `${path}.fields.${key}`;
      const face = pass.faceKeys.has(key);
      if (!face && !pass.backKeys.has(key)) throw invalid(fieldPath, 'is not a field of the pass');
      if (!isRecord(texts)) throw invalid(fieldPath, 'must be an object');
      assertKnownKeys(texts, ['label', 'value'], fieldPath);
      assertText(texts.label, `${fieldPath}.label`, LABEL_LIMIT);
      if (texts.value !== undefined && !face) {
        throw invalid(
          `${fieldPath}.value`,
          "is a back field's links: only its label is translated",
        );
      }
      assertText(texts.value, `${fieldPath}.value`, VALUE_LIMIT);
    }
  }
}

function assertKnownKeys(object: Record<string, unknown>, known: string[], path: string): void {
  const unknown = Object.keys(object).find((key) => !known.includes(key));
  if (unknown !== undefined) throw invalid(`${path}.${unknown}`, 'should not exist');
}

function assertText(value: unknown, path: string, limit: number): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw invalid(path, 'must be a string');
  if (value.length > limit) {
    throw invalid(path, `must be shorter than or equal to ${limit} characters`);
  }
}

/**
 * The best of the pass's languages for an `Accept-Language` header (RFC 9110: ranges by
 * weight; `de` matches `de-AT`, and `de-AT` falls back to `de`), or null for the pass's own
 * texts (no header, no match, or `*`).
 */
export function pickLanguage(
  acceptLanguage: string | undefined,
  available: readonly string[],
): string | null {
  if (acceptLanguage === undefined || available.length === 0) return null;
  const ranges = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [range, ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { range: range.trim().toLowerCase(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter(({ range, weight }) => range !== '' && range !== '*' && weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  const lower = available.map((tag) => tag.toLowerCase());
  for (const { range } of ranges) {
    const exact = lower.indexOf(range);
    if (exact >= 0) return available[exact];
    const wider = lower.findIndex((tag) => tag.startsWith(`${range}-`));
    if (wider >= 0) return available[wider];
    // RFC 4647 lookup: `zh-hant-tw`, then `zh-hant`, then `zh`.
    const subtags = range.split('-');
    for (let length = subtags.length - 1; length > 0; length -= 1) {
      const shorter = lower.indexOf(subtags.slice(0, length).join('-'));
      if (shorter >= 0) return available[shorter];
    }
  }
  return null;
}
