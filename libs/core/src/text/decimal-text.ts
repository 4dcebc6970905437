/**
 * Decimal numbers written as text ("1200", "-3.5", a holder's points) and their exact sums.
 *
 * A decimal text is an optional minus, 1 to 30 digits and an optional fraction of 1 to 30
 * digits, nothing else: the form audiences read as a number and bulk increments write back.
 * Sums are made on BigInt-scaled integers, never in binary floating point, so
 * "9007199254740993" + 1 is "9007199254740994" and no sum is written as "1e+21" (a form that
 * would no longer read as a decimal text).
 */
export const MAX_INTEGER_DIGITS = 30;
export const MAX_FRACTION_DIGITS = 30;

/** A decimal text, as {@link parseDecimal} takes it once trimmed. */
export const DECIMAL_TEXT = /^-?\d{1,30}(?:\.\d{1,30})?$/;

/** `units` × 10^-`scale`: the digits of the number and how many of them follow the point. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** The number a decimal text (leading and trailing spaces ignored) stands for, or null. */
export function parseDecimal(text: string): Decimal | null {
  const trimmed = text.trim();
  if (!DECIMAL_TEXT.test(trimmed)) return null;
  const [integer, fraction = ''] = trimmed.split('.');
  return { units: BigInt(integer + fraction), scale: fraction.length };
}

/** How JavaScript writes a finite number: digits, an optional fraction, an optional exponent. */
const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The decimal a JavaScript number stands for: the shortest text that reads back as the same
 * number (what `String` writes, so 0.1 is 0.1 and not its binary expansion), out of exponent
 * form (1e+21 is 1 followed by 21 zeros, 1.5e-7 is 0.00000015). Null for NaN and the
 * infinities. -0 is 0.
 */
export function numberDecimal(number: number): Decimal | null {
  if (!Number.isFinite(number)) return null;
  const match = NUMBER_TEXT.exec(String(number));
  // String() of a finite number always has this form.
  if (match === null) return null;
  const [, sign, integer, fraction = '', exponent = '0'] = match;
  const shift = Number(exponent) - fraction.length;
  const digits = sign + integer + fraction;
  return shift >= 0
    ? { units: BigInt(digits + '0'.repeat(shift)), scale: 0 }
    : { units: BigInt(digits), scale: -shift };
}

const TEN = 10n;

function scaledTo(decimal: Decimal, scale: number): bigint {
  return decimal.units * TEN ** BigInt(scale - decimal.scale);
}

/** `a + b` exactly, with the scale of the more precise of the two ("12.50" + 1 is "13.50"). */
export function addDecimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: scaledTo(a, scale) + scaledTo(b, scale), scale };
}

/** Whether two decimals are the same number, whatever their scales (1.5 and 1.50 are). */
export function sameDecimal(a: Decimal, b: Decimal): boolean {
  const scale = Math.max(a.scale, b.scale);
  return scaledTo(a, scale) === scaledTo(b, scale);
}

/**
 * The decimal as a decimal text, with exactly `scale` digits after the point and no exponent
 * (zero has no minus); null when that text would not be one (more than 30 digits before the
 * point or after it).
 */
export function formatDecimal(decimal: Decimal): string | null {
  const { units, scale } = decimal;
  if (scale > MAX_FRACTION_DIGITS) return null;
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale);
  if (integer.length > MAX_INTEGER_DIGITS) return null;
  const sign = units < 0n ? '-' : '';
  return scale === 0 ? sign + integer : `${sign}${integer}.${digits.slice(integer.length)}`;
}

/**
 * The JavaScript number that is exactly this decimal and stays so wherever it is read, or null
 * when there is none: its shortest text must read back as the decimal (0.3 is the number 0.3;
 * the nearest number to 9007199254740993 is 9007199254740992), and an integer must be a safe
 * one (beyond 2^53 neighbouring integers share a number, so a reader adding 1 to
 * 9007199254740994 would get it back). Null too when the decimal is no decimal text.
 */
export function exactNumber(decimal: Decimal): number | null {
  const text = formatDecimal(decimal);
  if (text === null) return null;
  // + 0: the sum -0.5 + 0.5 is 0, never -0.
  const number = Number(text) + 0;
  if (Number.isInteger(number) && !Number.isSafeInteger(number)) return null;
  const back = numberDecimal(number);
  return back !== null && sameDecimal(back, decimal) ? number : null;
}
