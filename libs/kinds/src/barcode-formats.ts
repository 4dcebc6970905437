import {
  type BarcodeFallbackFormat,
  type BarcodeFormat,
  DEFAULT_BARCODE_FALLBACK_FORMAT,
} from './kind-names';

/**
 * What each barcode format can carry, and whether only iOS 27 renders it. Apple
 * lists QR, PDF 417, Aztec, Code 128, Code 39, Codabar, EAN 13 and Interleaved 2 of 5 (ITF), the
 * last four from iOS 27 on, with a fallback after them in `barcodes` for older devices
 * (developer.apple.com/documentation/walletpasses/pass/barcodes-data.dictionary).
 */
interface BarcodeRule {
  /** Why the format cannot carry `message`; null when it can. */
  problem(message: string): string | null;
  /** Only iOS 27 and later render it: older iPhones need the fallback after it. */
  iOS27: boolean;
}

const DIGITS = /^\d+$/;
/** Code 39's 43 characters (`*`, its start and stop, is not data). */
const CODE39 = /^[0-9A-Z .$/+%-]+$/;
/** Codabar's data characters, between a start and a stop letter (A–D) or neither. */
const CODABAR = /^(?:[A-D][0-9$:/.+-]+[A-D]|[0-9$:/.+-]+)$/;

/**
 * The GS1 check digit of the digits before it (EAN-13, ITF-14): weights 3 and 1 from the
 * right, the digit that makes the sum a multiple of 10.
 */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let index = 0; index < body.length; index += 1) {
    const fromRight = body.length - 1 - index;
    sum += Number(body[index]) * (fromRight % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/** Digits of `length` whose last is their GS1 check digit. */
export function isGs1Number(message: string, length: number): boolean {
  return (
    message.length === length &&
    DIGITS.test(message) &&
    gs1CheckDigit(message.slice(0, -1)) === Number(message[length - 1])
  );
}

const isAscii = (text: string): boolean => [...text].every((c) => c.charCodeAt(0) < 0x80);

export const BARCODE_RULES = {
  QR: { iOS27: false, problem: () => null },
  PDF417: { iOS27: false, problem: () => null },
  Aztec: { iOS27: false, problem: () => null },
  Code128: {
    iOS27: false,
    problem: (message) => (isAscii(message) ? null : 'must be ASCII text for a Code128 barcode'),
  },
  EAN13: {
    iOS27: true,
    problem: (message) => {
      if (message.length !== 13 || !DIGITS.test(message)) {
        return 'must be 13 digits for an EAN13 barcode';
      }
      const check = gs1CheckDigit(message.slice(0, 12));
      return check === Number(message[12])
        ? null
        : `must end in its check digit for an EAN13 barcode (${check} for these 12 digits)`;
    },
  },
  Code39: {
    iOS27: true,
    problem: (message) =>
      CODE39.test(message)
        ? null
        : 'must be Code39 characters for a Code39 barcode: digits, capital letters A-Z, space and - . $ / + %',
  },
  Codabar: {
    iOS27: true,
    problem: (message) =>
      CODABAR.test(message)
        ? null
        : 'must be Codabar characters for a Codabar barcode: digits and - $ : / . +, ' +
          'either between a start and a stop letter A-D or without them',
  },
  ITF: {
    iOS27: true,
    problem: (message) =>
      DIGITS.test(message) && message.length % 2 === 0
        ? null
        : 'must be an even number of digits for an ITF barcode',
  },
} satisfies Record<BarcodeFormat, BarcodeRule>;

/** Why `format` cannot carry `message` (null when it can); an empty message is no barcode. */
export function barcodeProblem(format: BarcodeFormat | undefined, message: string): string | null {
  return message === '' ? null : BARCODE_RULES[format ?? 'QR'].problem(message);
}

/** The barcode settings of a pass's metadata (stored, or a request's). */
export interface BarcodeSettings {
  barcodeFormat?: BarcodeFormat;
  barcodeFallbackFormat?: BarcodeFallbackFormat;
}

/**
 * The formats a pass shows `message` in, the one current phones render first: an iOS 27 format
 * and then its fallback for older iPhones; the fallback alone when the iOS 27 format cannot
 * carry the message (a holder's value written before the pass changed its format); any other
 * format alone. Every wallet and the holder page read it, so they show the same code.
 */
export function barcodeFormatsFor(
  settings: BarcodeSettings,
  message: string,
): [BarcodeFormat, ...BarcodeFormat[]] {
  const format = settings.barcodeFormat ?? 'QR';
  if (!BARCODE_RULES[format].iOS27) return [format];
  const fallback = settings.barcodeFallbackFormat ?? DEFAULT_BARCODE_FALLBACK_FORMAT;
  return BARCODE_RULES[format].problem(message) === null ? [format, fallback] : [fallback];
}
