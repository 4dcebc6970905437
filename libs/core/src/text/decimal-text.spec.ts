import fc from 'fast-check';
import {
  addDecimals,
  exactNumber,
  formatDecimal,
  numberDecimal,
  parseDecimal,
  sameDecimal,
  type Decimal,
} from './decimal-text';

const sum = (a: string, b: string): string | null =>
  formatDecimal(addDecimals(parseDecimal(a)!, parseDecimal(b)!));
const textOf = (number: number): string | null => formatDecimal(numberDecimal(number)!);

describe('parseDecimal', () => {
  it('reads an optional minus, up to 30 digits and up to 30 fraction digits', () => {
    expect(parseDecimal('1200')).toEqual({ units: 1200n, scale: 0 });
    expect(parseDecimal(' -12.50 ')).toEqual({ units: -1250n, scale: 2 });
    expect(parseDecimal('007')).toEqual({ units: 7n, scale: 0 });
    expect(parseDecimal('9'.repeat(30) + '.' + '9'.repeat(30))).not.toBeNull();
  });

  it('refuses whatever else a text may hold', () => {
    for (const text of [
      '',
      ' ',
      'lots',
      '1e3',
      '0x10',
      '+1',
      '.5',
      '5.',
      '1,5',
      'NaN',
      'Infinity',
      '2026-01-01T00:00:00Z',
      '1'.repeat(31),
      '0.' + '1'.repeat(31),
    ]) {
      expect(parseDecimal(text)).toBeNull();
    }
  });
});

describe('numberDecimal', () => {
  it("takes a number's shortest text, out of exponent form", () => {
    expect(textOf(0.1)).toBe('0.1');
    expect(textOf(-2.5)).toBe('-2.5');
    expect(textOf(-0)).toBe('0');
    expect(textOf(1e21)).toBe('1000000000000000000000');
    expect(textOf(1.5e-7)).toBe('0.00000015');
    expect(textOf(-1e-7)).toBe('-0.0000001');
    // What JSON.parse makes of 9007199254740993.
    expect(textOf(Number('9007199254740993'))).toBe('9007199254740992');
    expect(textOf(123456789.125)).toBe('123456789.125');
  });

  it('has no text for numbers beyond 30 digits before or after the point', () => {
    expect(textOf(1e29)).toBe('1' + '0'.repeat(29));
    expect(textOf(1e30)).toBeNull();
    expect(textOf(1e-30)).toBe('0.' + '0'.repeat(29) + '1');
    expect(textOf(1e-31)).toBeNull();
    expect(textOf(Number.MAX_VALUE)).toBeNull();
    expect(textOf(Number.MIN_VALUE)).toBeNull();
  });

  it('is null for NaN and the infinities', () => {
    expect(numberDecimal(Number.NaN)).toBeNull();
    expect(numberDecimal(Number.POSITIVE_INFINITY)).toBeNull();
    expect(numberDecimal(Number.NEGATIVE_INFINITY)).toBeNull();
  });

  it('reads back as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (number) => {
        const decimal = numberDecimal(number)!;
        const digits = decimal.units.toString();
        const text = `${digits}e-${decimal.scale}`;
        expect(Number(text)).toBe(number + 0);
      }),
    );
  });
});

describe('addDecimals / formatDecimal', () => {
  it.each([
    ['9007199254740993', '1', '9007199254740994'],
    ['0.1', '0.2', '0.3'],
    ['1200', '50', '1250'],
    ['12.50', '1', '13.50'],
    ['10', '0.25', '10.25'],
    ['-0.5', '0.5', '0.0'],
    ['0.1', '-0.1', '0.0'],
    ['-3', '1', '-2'],
    ['-0.25', '0.2', '-0.05'],
    ['1', '-1.5', '-0.5'],
    ['007', '1', '8'],
    ['999999999999999999999999999999', '-1', '999999999999999999999999999998'],
    ['0.' + '0'.repeat(29) + '1', '1', '1.' + '0'.repeat(29) + '1'],
  ])('%s + %s = %s', (a, b, expected) => {
    expect(sum(a, b)).toBe(expected);
  });

  it('has no text for a sum of more than 30 digits before the point', () => {
    expect(sum('999999999999999999999999999999', '1')).toBeNull();
    expect(sum('-999999999999999999999999999999', '-1')).toBeNull();
  });

  it('is exact: the sum minus one operand is the other', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.integer({ min: 0, max: 30 }))
      .map(([units, scale]): Decimal => ({ units, scale }));
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const total = addDecimals(a, b);
        const back = addDecimals(total, { units: -b.units, scale: b.scale });
        expect(sameDecimal(back, a)).toBe(true);
        expect(parseDecimal(formatDecimal(total)!)).toEqual(total);
      }),
    );
  });
});

describe('exactNumber', () => {
  it('is the number that is exactly the decimal', () => {
    expect(exactNumber(parseDecimal('0.3')!)).toBe(0.3);
    expect(exactNumber(parseDecimal('13.50')!)).toBe(13.5);
    expect(exactNumber(parseDecimal('9007199254740991')!)).toBe(Number.MAX_SAFE_INTEGER);
    expect(exactNumber(parseDecimal('-9007199254740991.0')!)).toBe(Number.MIN_SAFE_INTEGER);
    expect(exactNumber(parseDecimal('123456789012.345')!)).toBe(123456789012.345);
    expect(Object.is(exactNumber(parseDecimal('-0.0')!), 0)).toBe(true);
  });

  it('is null when no number is, or only an integer beyond the safe ones', () => {
    expect(exactNumber(parseDecimal('9007199254740993')!)).toBeNull();
    // Numbers, but not safe integers: their neighbours read as them.
    expect(exactNumber(parseDecimal('9007199254740992')!)).toBeNull();
    expect(exactNumber(parseDecimal('1000000000000000000000')!)).toBeNull();
    expect(exactNumber(parseDecimal('1000000000000000000001')!)).toBeNull();
    expect(exactNumber(parseDecimal('0.1000000000000000000001')!)).toBeNull();
  });
});
