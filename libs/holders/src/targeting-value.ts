import { DECIMAL_TEXT } from '@app/core';

/**
 * How a holder's value (an attribute, or a face field value, which is always text) is kept for
 * audiences: its type, its text, and its number when it has one. A number is a
 * number; a text that is a decimal number ("1200", "-3.5") counts as that number too, so a
 * points field compares numerically; a boolean is neither. The empty text is no value at all.
 * Every holder write applies this one rule (the migration that indexed existing holders keeps
 * its own copy, as it was then).
 */
export type TargetingValueType = 's' | 'n' | 'b';

export interface TargetingValue {
  valueType: TargetingValueType;
  textValue: string;
  numberValue: number | null;
}

/** The number a text stands for when it is a decimal number, else null. */
export function decimalNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!DECIMAL_TEXT.test(trimmed)) return null;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : null;
}

/** The kept form of a value, or null for no value (the empty text). */
export function targetingValue(value: string | number | boolean): TargetingValue | null {
  if (typeof value === 'boolean') {
    return { valueType: 'b', textValue: String(value), numberValue: null };
  }
  if (typeof value === 'number') {
    return { valueType: 'n', textValue: String(value), numberValue: value };
  }
  if (value === '') return null;
  return { valueType: 's', textValue: value, numberValue: decimalNumber(value) };
}
