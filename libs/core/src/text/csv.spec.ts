import { CsvSyntaxError, readCsv, type CsvRecord } from './csv';

const read = (text: string): CsvRecord[] => [...readCsv(text)];

function errorOf(text: string): { line: number; message: string } {
  try {
    read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(CsvSyntaxError);
    return { line: (error as CsvSyntaxError).line, message: (error as Error).message };
  }
  throw new Error('expected a CsvSyntaxError');
}

describe('readCsv', () => {
  it('reads records and their line numbers', () => {
    expect(read('a,b,c\n1,2,3\n4,5,6')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '2', '3'] },
      { line: 3, fields: ['4', '5', '6'] },
    ]);
  });

  it('takes CRLF and LF line ends alike, and one or more trailing line breaks', () => {
    const expected = [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ];
    expect(read('a,b\r\n1,2\r\n')).toEqual(expected);
    expect(read('a,b\n1,2\n')).toEqual(expected);
    expect(read('a,b\r\n1,2')).toEqual(expected);
    expect(read('a,b\n1,2\n\n\r\n')).toEqual(expected);
  });

  it('keeps empty fields, also at the ends of a line', () => {
    expect(read(',a,\n,,')).toEqual([
      { line: 1, fields: ['', 'a', ''] },
      { line: 2, fields: ['', '', ''] },
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks', () => {
    expect(
      read('"a,b","say ""hi""",""\r\n"two\r\nlines",x\n3,"multi\nline\nvalue"\nlast,1'),
    ).toEqual([
      { line: 1, fields: ['a,b', 'say "hi"', ''] },
      { line: 2, fields: ['two\r\nlines', 'x'] },
      { line: 4, fields: ['3', 'multi\nline\nvalue'] },
      { line: 7, fields: ['last', '1'] },
    ]);
  });

  it('skips a UTF-8 byte-order mark and keeps other text as it is', () => {
    expect(read('\ufeffplatform, views \nSocialA,ünïcödé ✓')).toEqual([
      { line: 1, fields: ['platform', ' views '] },
      { line: 2, fields: ['SocialA', 'ünïcödé ✓'] },
    ]);
  });

  it('reads nothing from empty text', () => {
    expect(read('')).toEqual([]);
    expect(read('\n\n')).toEqual([]);
  });

  it('refuses an empty line between records, naming its line', () => {
    expect(errorOf('a\n1\n\n2\n')).toEqual({ line: 3, message: expect.stringMatching(/empty/) });
  });

  it('refuses a quoted field that is never closed, at the line where it opens', () => {
    expect(errorOf('a,b\n1,"open\nstill open\n')).toEqual({
      line: 2,
      message: expect.stringMatching(/never closed/),
    });
  });

  it('refuses text after a closing quote', () => {
    expect(errorOf('a,b\n1,2\n"x"y,3')).toEqual({
      line: 3,
      message: expect.stringMatching(/after the closing quote/),
    });
  });

  it('refuses a quote inside an unquoted field', () => {
    expect(errorOf('a,b\n1,2\n3,4\nab"c,5')).toEqual({
      line: 4,
      message: expect.stringMatching(/quote inside an unquoted field/),
    });
  });

  it('refuses a bare carriage return', () => {
    expect(errorOf('a,b\r1,2')).toEqual({ line: 1, message: expect.stringMatching(/carriage/) });
  });

  it('is lazy: records before a syntax error come out first', () => {
    const records = readCsv('a\n1\n"broken');
    expect(records.next().value).toEqual({ line: 1, fields: ['a'] });
    expect(records.next().value).toEqual({ line: 2, fields: ['1'] });
    expect(() => records.next()).toThrow(CsvSyntaxError);
  });
});
