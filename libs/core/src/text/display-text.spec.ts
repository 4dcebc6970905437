import { displayText, displayTextDeep } from './display-text';

describe('displayText', () => {
  it('drops control characters and bidi overrides, keeping tabs, line feeds and RTL marks', () => {
    expect(displayText('Gold\u0000 card\u001b[31m')).toBe('Gold card[31m');
    expect(displayText('pay\u202Emoc.knab')).toBe('paymoc.knab');
    expect(displayText('a\u2066b\u2069c\u0085d\u007f')).toBe('abcd');
    expect(displayText('line 1\nline\t2\r\n')).toBe('line 1\nline\t2\n');
    expect(displayText('\u05e9\u05dc\u05d5\u05dd\u200f!')).toBe('\u05e9\u05dc\u05d5\u05dd\u200f!');
    expect(displayText('Café 😀')).toBe('Café 😀');
  });

  it('cleans every string of a nested value and leaves the rest alone', () => {
    expect(
      displayTextDeep({
        name: 'x\u202Ey',
        fields: [{ label: '\u0007L', value: 12, on: true, none: null }],
      }),
    ).toEqual({ name: 'xy', fields: [{ label: 'L', value: 12, on: true, none: null }] });
  });

  it('keeps every key an own key, whatever its name', () => {
    const value = JSON.parse('{"__proto__": {"x": "a\u202Eb"}, "constructor": "c"}') as object;
    const safe = displayTextDeep(value);
    expect(Object.getPrototypeOf(safe)).toBe(Object.prototype);
    expect(Object.keys(safe)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(safe, '__proto__')?.value).toEqual({ x: 'ab' });
  });
});
