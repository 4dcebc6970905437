/** What a PNG's IHDR chunk says about its pixels. */
export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/** Signature (8) + IHDR length and type (8) + IHDR data (13). */
export const PNG_HEADER_BYTES = 29;

/** Samples per pixel of each colour type the PNG specification defines. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Bit depths the specification allows for each colour type. */
const BIT_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * Room for what an honest PNG carries besides its pixels: the palette, an ICC profile, text
 * and EXIF chunks, and zlib's header.
 */
const ANCILLARY_BYTES = 256 * 1024;

/**
 * The IHDR of a PNG (the first chunk, right after the signature), or `undefined` when the
 * bytes do not start with a well-formed one. Reads no further than {@link PNG_HEADER_BYTES}.
 */
export function readPngHeader(bytes: Buffer): PngHeader | undefined {
  if (bytes.length < PNG_HEADER_BYTES) return undefined;
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    return undefined;
  }
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const bitDepth = bytes[24];
  const colorType = bytes[25];
  const interlace = bytes[28];
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) return undefined;
  if (!BIT_DEPTHS[colorType]?.includes(bitDepth) || interlace > 1) return undefined;
  return { width, height, bitDepth, colorType, interlaced: interlace === 1 };
}

/**
 * The most bytes a PNG of this size can honestly need: its raw scanlines (one filter byte per
 * row) left uncompressed, a margin for Adam7 interlacing's extra filter bytes, and
 * {@link ANCILLARY_BYTES}. A larger file carries something other than its picture.
 */
export function pngSizeBound(header: PngHeader): number {
  const bitsPerPixel = CHANNELS[header.colorType] * header.bitDepth;
  const rowBytes = 1 + Math.ceil((header.width * bitsPerPixel) / 8);
  const raw = header.height * rowBytes;
  // Noise does not compress: zlib then stores it (5 bytes per block), but an encoder that keeps
  // Huffman-coding it spends up to 9 bits a byte. An eighth more covers both.
  const stored = raw + Math.ceil(raw / 8);
  const interlaceMargin = header.interlaced ? 7 * header.height : 0;
  return stored + interlaceMargin + ANCILLARY_BYTES;
}
