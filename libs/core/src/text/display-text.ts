/**
 * Characters that must never reach a holder's screen: C0 and C1 control characters (tab and
 * line feed stay: back fields are multi-line), DEL, and the bidirectional embedding, override
 * and isolate controls (U+202A–U+202E, U+2066–U+2069), with which a name can make a wallet or a
 * page show text in another order than it is stored ("moc.knab" read as "bank.com"). The marks
 * U+200E/U+200F stay: right-to-left languages need them and they reorder nothing.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** `text` as it may be shown to a holder: see {@link UNSAFE}. */
export function displayText(text: string): string {
  return text.replace(UNSAFE, '');
}

/** Every string inside a JSON-shaped value (a pass.json, a Google resource) made safe to show. */
export function displayTextDeep<T>(value: T): T {
  if (typeof value === 'string') return displayText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => displayTextDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    // Built from entries, not assigned into: a key (a field's, say) may be any name.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, displayTextDeep(item)]),
    ) as T;
  }
  return value;
}
