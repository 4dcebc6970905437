import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG chunks use it (ISO 3309, the one zlib and gzip use). */
export function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngOptions {
  width?: number;
  height?: number;
  /** Fill colour, RGBA 0–255. */
  rgba?: [number, number, number, number];
  /** Random pixels instead of one colour: as large as an honest PNG of that size gets. */
  noise?: boolean;
  /** A left-to-right gradient from `rgba` to this colour instead of one colour. */
  gradientTo?: [number, number, number, number];
}

/**
 * A valid PNG filled with one colour (8-bit RGBA): signature, IHDR, IDAT, IEND. Any decoder
 * (and Apple's pass validator) reads it; different sizes or colours give different bytes.
 */
export function makePng({
  width = 1,
  height = 1,
  rgba = [255, 0, 0, 255],
  noise = false,
  gradientTo,
}: PngOptions = {}): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  header[10] = 0; // compression: deflate
  header[11] = 0; // filter method
  header[12] = 0; // no interlace
  const gradient = (to: [number, number, number, number]) =>
    Buffer.from(
      Array.from({ length: width }, (_, x) =>
        rgba.map((from, channel) =>
          Math.round(from + ((to[channel] - from) * x) / Math.max(1, width - 1)),
        ),
      ).flat(),
    );
  const row = () =>
    Buffer.concat([
      Buffer.from([0]),
      noise
        ? randomBytes(width * 4)
        : gradientTo
          ? gradient(gradientTo)
          : Buffer.alloc(width * 4, Buffer.from(rgba)),
    ]);
  const pixels = Buffer.concat(Array.from({ length: height }, row));
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Bytes that start like a JPEG (SOI + JFIF APP0), whatever name they are sent under. */
export function makeJpegLikeBytes(size = 64): Buffer {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  return Buffer.concat([
    head,
    Buffer.alloc(Math.max(0, size - head.length - 2), 7),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/**
 * What a hostile upload looks like: a valid PNG signature and IHDR (claiming `width`×`height`)
 * followed by `size` bytes of random data instead of a picture.
 */
export function makeBloatedPng(size: number, width = 1, height = 1): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 6;
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), randomBytes(size)]);
}
