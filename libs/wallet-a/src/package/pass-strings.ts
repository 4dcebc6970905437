import { displayText } from '@app/core';
import { fieldTexts, type PassLocalizations } from '@app/passes';

/** The parts of a built pass.json whose texts a `pass.strings` file translates. */
interface BuiltPassJson {
  description?: unknown;
  organizationName?: unknown;
  [style: string]: unknown;
}

interface BuiltField {
  key?: unknown;
  label?: unknown;
  value?: unknown;
}

const SLOTS = [
  'headerFields',
  'primaryFields',
  'secondaryFields',
  'auxiliaryFields',
  'backFields',
] as const;

/**
 * `<lang>.lproj/pass.strings` of every language of the pass. Wallet looks each
 * text of pass.json up as a key of the device language's file and shows the translation, or
 * the text itself when there is none, so pass.json keeps the pass's own texts and a device in
 * any other language shows them as before.
 *
 * Keys are the texts exactly as pass.json has them (after the same cleaning). Files are
 * UTF-16LE with a byte order mark, the encoding Apple's string resources guide names for
 * `.strings` files (and what pass libraries read). A field's value is
 * translated only where the package shows the pass's own value: `ownValueKeys` are the fields
 * whose value is a holder's. The same text translated two ways in one language keeps the first
 * (a strings file maps a text once), in pass.json's order: description, organisation, then the
 * fields slot by slot.
 */
export function buildPassStrings(
  passJson: BuiltPassJson,
  style: string,
  localizations: PassLocalizations | undefined,
  ownValueKeys: ReadonlySet<string> = new Set(),
): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const structure = (passJson[style] ?? {}) as Partial<Record<(typeof SLOTS)[number], unknown>>;
  const fields = SLOTS.flatMap((slot) => {
    const list = structure[slot];
    return Array.isArray(list) ? (list as BuiltField[]) : [];
  });
  for (const [language, texts] of Object.entries(localizations ?? {})) {
    const entries = new Map<string, string>();
    const add = (source: unknown, translation: string | undefined) => {
      if (typeof source !== 'string' || source === '' || translation === undefined) return;
      if (!entries.has(source)) entries.set(source, displayText(translation));
    };
    add(passJson.description, texts.description);
    add(passJson.organizationName, texts.organizationName);
    for (const field of fields) {
      const translated = typeof field.key === 'string' ? fieldTexts(texts, field.key) : undefined;
      if (translated === undefined) continue;
      add(field.label, translated.label);
      if (!ownValueKeys.has(field.key as string)) add(field.value, translated.value);
    }
    if (entries.size === 0) continue;
    const lines = [...entries].map(([key, value]) => `"${quote(key)}" = "${quote(value)}";`);
    files.set(
      `${language}.lproj/pass.strings`,
      Buffer.from(`\ufeff${lines.join('\n')}\n`, 'utf16le'),
    );
  }
  return files;
}

/** A strings-file literal: backslash, quote and line breaks escaped as in C. */
function quote(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n');
}
