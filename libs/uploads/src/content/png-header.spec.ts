import { pngSizeBound, readPngHeader } from './png-header';

function header(width: number, height: number, bitDepth = 8, colorType = 6, interlace = 0) {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  bytes.writeUInt32BE(13, 8);
  bytes.write('IHDR', 12, 'latin1');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes[24] = bitDepth;
  bytes[25] = colorType;
  bytes[28] = interlace;
  return bytes;
}

describe('readPngHeader', () => {
  it('reads size, depth, colour type and interlacing', () => {
    expect(readPngHeader(header(375, 144, 16, 2, 1))).toEqual({
      width: 375,
      height: 144,
      bitDepth: 16,
      colorType: 2,
      interlaced: true,
    });
  });

  it.each([
    ['too short', header(1, 1).subarray(0, 28)],
    ['zero width', header(0, 1)],
    ['a width past 2^31 - 1', header(0x80000000, 1)],
    ['a bit depth the colour type does not allow', header(1, 1, 16, 3)],
    ['an unknown colour type', header(1, 1, 8, 5)],
    ['an unknown interlace method', header(1, 1, 8, 6, 2)],
  ])('refuses %s', (_, bytes) => {
    expect(readPngHeader(bytes)).toBeUndefined();
  });

  it('refuses a first chunk other than IHDR', () => {
    const bytes = header(1, 1);
    bytes.write('IDAT', 12, 'latin1');
    expect(readPngHeader(bytes)).toBeUndefined();
  });
});

describe('pngSizeBound', () => {
  const bound = (width: number, height: number, bitDepth = 8, colorType = 6) =>
    pngSizeBound({ width, height, bitDepth, colorType, interlaced: false });

  it('covers the raw scanlines, an eighth more and 256 KB of other chunks', () => {
    // 1125×432 RGBA: 432 rows of 1 + 4,500 bytes.
    const raw = 432 * 4501;
    expect(bound(1125, 432)).toBe(raw + Math.ceil(raw / 8) + 256 * 1024);
  });

  it('grows with bit depth and channels, and packs sub-byte pixels', () => {
    expect(bound(100, 100, 16, 6)).toBeGreaterThan(bound(100, 100, 8, 6));
    expect(bound(100, 100, 8, 6)).toBeGreaterThan(bound(100, 100, 8, 2));
    // 1-bit greyscale: 8 pixels a byte, so 100 pixels fill 13 bytes plus the filter byte.
    const raw = 100 * 14;
    expect(bound(100, 100, 1, 0)).toBe(raw + Math.ceil(raw / 8) + 256 * 1024);
  });
});
