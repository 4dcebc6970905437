import { EnvReader } from './env-reader';

describe('EnvReader', () => {
  it('takes a blank or absent variable as unset, and trims values', () => {
    const read = new EnvReader({ A: '  ', B: ' x ' });
    expect(read.optional('A')).toBeUndefined();
    expect(read.optional('C')).toBeUndefined();
    expect(read.string('B', 'fallback')).toBe('x');
    expect(read.problems).toEqual([]);
  });

  it('keeps the fallback and notes a problem for a value out of its range or type', () => {
    const read = new EnvReader({ N: '1.5', M: '11', B: 'maybe', O: 'c', U: 'ftp://x' });
    expect(read.int('N', 3, 0, 10)).toBe(3);
    expect(read.int('M', 3, 0, 10)).toBe(3);
    expect(read.bool('B', true)).toBe(true);
    expect(read.oneOf('O', ['a', 'b'] as const, 'a')).toBe('a');
    read.url('U', undefined, ['https:']);
    expect(read.problems).toEqual([
      'N must be an integer from 0 to 10 (got "1.5")',
      'M must be an integer from 0 to 10 (got "11")',
      'B must be true or false (got "maybe")',
      'O must be one of a, b (got "c")',
      'U must use https: (got "ftp://x")',
    ]);
  });

  it('reads true and false in their usual spellings, and lists without blanks', () => {
    const read = new EnvReader({ T: 'Yes', F: '0', L: 'a, ,b,' });
    expect(read.bool('T', false)).toBe(true);
    expect(read.bool('F', true)).toBe(false);
    expect(read.list('L', [])).toEqual(['a', 'b']);
  });

  it('reads a list of URLs, checking each one, and none when unset', () => {
    const read = new EnvReader({ U: 'https://a/, https://b', V: 'https://c,ftp://d,nope' });
    expect(read.urlList('U', ['https:'])).toEqual(['https://a', 'https://b']);
    expect(read.urlList('W', ['https:'])).toEqual([]);
    expect(read.problems).toEqual([]);
    read.urlList('V', ['https:']);
    expect(read.problems).toEqual([
      'V must use https: (got "ftp://d")',
      'V must be a URL (got "nope")',
    ]);
  });
});
