import { sniffContentType } from './content-type';

/** PNG signature + a well-formed IHDR chunk header: what the sniffer looks at. */
function pngHead(): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(1, 8);
  ihdr.writeUInt32BE(1, 12);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part),
    ),
  );

describe('sniffContentType', () => {
  it.each([
    ['PNG', pngHead(), 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg'],
    ['GIF87a', bytes('GIF87a', [1, 0, 1, 0]), 'image/gif'],
    ['GIF89a', bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
    ['WebP', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['PDF', bytes('%PDF-1.7\n'), 'application/pdf'],
  ])('recognises %s by its magic bytes, whatever the name', (_kind, body, type) => {
    expect(sniffContentType(body, 'anything.txt')).toBe(type);
    expect(sniffContentType(body, 'logo.png')).toBe(type);
  });

  it('does not take the name for the content', () => {
    expect(sniffContentType(bytes([0xff, 0xd8, 0xff, 0xdb]), 'logo.png')).toBe('image/jpeg');
    expect(sniffContentType(bytes('hello'), 'logo.png')).toBeUndefined();
  });

  it('wants more than the PNG signature: the IHDR chunk must follow', () => {
    const signatureOnly = pngHead().subarray(0, 8);
    expect(sniffContentType(signatureOnly, 'a.png')).toBeUndefined();
    const wrongChunk = Buffer.from(pngHead());
    wrongChunk.write('IDAT', 12, 'latin1');
    expect(sniffContentType(wrongChunk, 'a.png')).toBeUndefined();
  });

  it('does not take RIFF files other than WebP', () => {
    expect(sniffContentType(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'a.webp')).toBeUndefined();
  });

  it('takes UTF-8 text named .csv as text/csv', () => {
    const csv = Buffer.from('name,city\nZoë,Zürich\n', 'utf8');
    expect(sniffContentType(csv, 'people.csv')).toBe('text/csv');
    expect(sniffContentType(csv, 'PEOPLE.CSV')).toBe('text/csv');
    expect(sniffContentType(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv]), 'a.csv')).toBe(
      'text/csv',
    );
  });

  it('refuses text without a .csv name, with NUL bytes, or not UTF-8', () => {
    expect(sniffContentType(Buffer.from('a,b\n1,2\n'), 'data.txt')).toBeUndefined();
    expect(sniffContentType(Buffer.from('a,b\n1,\u0000\n'), 'data.csv')).toBeUndefined();
    expect(
      sniffContentType(Buffer.from([0x61, 0x2c, 0xff, 0xfe, 0x0a]), 'data.csv'),
    ).toBeUndefined();
  });

  it('recognises nothing in an empty or unknown file', () => {
    expect(sniffContentType(Buffer.alloc(0), 'a.png')).toBeUndefined();
    expect(sniffContentType(bytes('PK', [3, 4]), 'a.zip')).toBeUndefined();
    expect(
      sniffContentType(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'a.svg'),
    ).toBeUndefined();
  });
});
