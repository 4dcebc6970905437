/** Content types the service recognises from a file's own bytes. */
export const PNG = 'image/png';
export const JPEG = 'image/jpeg';
export const GIF = 'image/gif';
export const WEBP = 'image/webp';
export const PDF = 'application/pdf';
export const CSV = 'text/csv';

export const KNOWN_CONTENT_TYPES = [PNG, JPEG, GIF, WEBP, PDF, CSV] as const;
export type KnownContentType = (typeof KNOWN_CONTENT_TYPES)[number];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsWith(body: Buffer, prefix: Buffer | string, offset = 0): boolean {
  const bytes = typeof prefix === 'string' ? Buffer.from(prefix, 'latin1') : prefix;
  return (
    body.length >= offset + bytes.length &&
    body.subarray(offset, offset + bytes.length).equals(bytes)
  );
}

/**
 * A PNG starts with its 8-byte signature followed by the IHDR chunk (length 13). Checking the
 * chunk as well turns away a file that merely begins with the signature.
 */
function isPng(body: Buffer): boolean {
  return (
    startsWith(body, PNG_SIGNATURE) &&
    body.length >= 33 &&
    body.readUInt32BE(8) === 13 &&
    startsWith(body, 'IHDR', 12)
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8Text(body: Buffer): boolean {
  if (body.includes(0)) return false;
  try {
    utf8.decode(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * The content type of a file, from its magic bytes; never from its name or the client's
 * header. Text has no magic bytes, so a `.csv` name is needed for it, and the bytes must be
 * UTF-8 without NUL. `undefined` when the file is none of the known types.
 */
export function sniffContentType(body: Buffer, fileName: string): KnownContentType | undefined {
  if (isPng(body)) return PNG;
  if (startsWith(body, Buffer.from([0xff, 0xd8, 0xff]))) return JPEG;
  if (startsWith(body, 'GIF87a') || startsWith(body, 'GIF89a')) return GIF;
  if (startsWith(body, 'RIFF') && startsWith(body, 'WEBP', 8)) return WEBP;
  if (startsWith(body, '%PDF-')) return PDF;
  if (/\.csv$/i.test(fileName) && isUtf8Text(body)) return CSV;
  return undefined;
}
