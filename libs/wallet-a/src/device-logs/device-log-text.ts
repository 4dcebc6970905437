import { createHash } from 'node:crypto';

/** Characters of a message kept (and written to the process log). */
export const MAX_MESSAGE_LENGTH = 2000;

/** Serial numbers looked up per message: Wallet's messages name one. */
const MAX_CANDIDATES = 4;

/**
 * Wallet starts every line with the device's clock: `[2026-11-26 10:00:00 +0000] `. Without it
 * the same error posted again is the same message, counted on one entry; the entry's times are
 * the service's.
 */
const DEVICE_TIME = /^\s*\[\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}[^\]\n]{0,32}\]\s*/;

/**
 * What follows "serial number" (Wallet's own words: `(pass type pass.com.example, serial number
 * 0193…, if-modified-since …)`), or `serialNumber` with `:`, `=` or quotes: any id of the spec's
 * pattern (`ID_PATTERN`) of at most 64 characters, cut off at neither end. The separator is
 * bounded, so no input makes the match backtrack far.
 */
const NAMED = /\bserial[ _-]?number[\s:="']{1,8}([A-Za-z0-9_-]{1,64})(?![A-Za-z0-9_-])/gi;

/**
 * Anywhere in the text (a URL, another wording): the shapes this service gives serial numbers,
 * a pass id (a UUID) and a holder's serial number (32 hex digits), as whole words.
 */
const SHAPED =
  /(?<![A-Za-z0-9_-])([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})(?![A-Za-z0-9_-])/gi;

/** A UTF-16 surrogate without its other half, which no UTF-8 column can store. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The message kept of one entry Wallet posted: without the device's leading timestamp and the
 * surrounding white space, at most {@link MAX_MESSAGE_LENGTH} characters, a lone surrogate
 * (JSON may carry one as `\ud800`) replaced by U+FFFD. Nothing else is changed: the text is
 * stored and answered as data.
 */
export function deviceLogMessage(entry: string): string {
  const text = entry.replace(DEVICE_TIME, '').trim().slice(0, MAX_MESSAGE_LENGTH);
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The serial numbers a message may name, most likely first: those after "serial number", then
 * the UUIDs and 32-hex-digit words anywhere (lower-cased, as this service makes them), without
 * repeats, at most {@link MAX_CANDIDATES}. Which of them exist is for the database to say.
 */
export function serialCandidates(message: string): string[] {
  const found = new Set<string>();
  for (const match of message.matchAll(NAMED)) found.add(match[1]);
  for (const match of message.matchAll(SHAPED)) found.add(match[1].toLowerCase());
  return [...found].slice(0, MAX_CANDIDATES);
}

/** SHA-256 (hex) of a message: with the pass and serial number, what makes an entry one. */
export function messageHash(message: string): string {
  return createHash('sha256').update(message, 'utf8').digest('hex');
}
