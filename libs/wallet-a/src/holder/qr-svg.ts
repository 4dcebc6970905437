import QRCode from 'qrcode';
import type { PassBarcode } from '../package/pass-json';

/**
 * Error correction M (15 %), the library's default and what Wallet's QR codes carry; a quiet
 * zone of two modules inside the SVG, the rest is the white box around it on the page.
 */
const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;

/** ISO-8859-1 holds U+0000–U+00FF, one byte each. */
function fitsLatin1(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    if (text.charCodeAt(index) > 0xff) return false;
  }
  return true;
}

/**
 * An SVG QR code of these bytes in byte mode, as `qrcode` draws it (paths with presentation
 * attributes, no `style`, so the page's CSP needs nothing for it).
 */
function svgOfBytes(bytes: Buffer): Promise<string> {
  return QRCode.toString([{ data: bytes, mode: 'byte' }], QR_OPTIONS);
}

/**
 * The pass's barcode as Wallet draws it: PKBarcodeFormatQR of the message in the encoding the
 * package declares (ISO-8859-1). A message that encoding cannot hold is drawn in UTF-8, which
 * scanners read, rather than as bytes that mean something else.
 */
export function barcodeSvg(barcode: PassBarcode): Promise<string> {
  const latin1 = barcode.messageEncoding === 'iso-8859-1' && fitsLatin1(barcode.message);
  return svgOfBytes(Buffer.from(barcode.message, latin1 ? 'latin1' : 'utf8'));
}

/**
 * A QR code of a URL (the page's own, to open it on a phone), segmented by the library (digits
 * and capitals take fewer modules than bytes): a smaller code that phones read from further.
 */
export function urlQrSvg(url: string): Promise<string> {
  return QRCode.toString(url, QR_OPTIONS);
}
