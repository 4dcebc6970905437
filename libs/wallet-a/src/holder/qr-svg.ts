import QRCode from 'qrcode';
import { barcodeEncoding, type PassBarcode } from '../package/pass-json';

/**
 * Error correction M (15 %), the library's default and what Wallet's QR codes carry; a quiet
 * zone of two modules inside the SVG, the rest is the white box around it on the page.
 */
const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;

/**
 * An SVG QR code of these bytes in byte mode, as `qrcode` draws it (paths with presentation
 * attributes, no `style`, so the page's CSP needs nothing for it).
 */
function svgOfBytes(bytes: Buffer): Promise<string> {
  return QRCode.toString([{ data: bytes, mode: 'byte' }], QR_OPTIONS);
}

/**
 * The pass's barcode as Wallet draws it: PKBarcodeFormatQR of the message in the encoding the
 * package declares (`barcodeEncoding`: ISO-8859-1, or UTF-8 for a message it cannot hold).
 */
export function barcodeSvg(barcode: PassBarcode): Promise<string> {
  // A message ISO-8859-1 cannot hold is never drawn as bytes that mean something else.
  const latin1 =
    barcode.messageEncoding === 'iso-8859-1' && barcodeEncoding(barcode.message) === 'iso-8859-1';
  return svgOfBytes(Buffer.from(barcode.message, latin1 ? 'latin1' : 'utf8'));
}

/**
 * A QR code of a URL (the page's own, to open it on a phone), segmented by the library (digits
 * and capitals take fewer modules than bytes): a smaller code that phones read from further.
 */
export function urlQrSvg(url: string): Promise<string> {
  return QRCode.toString(url, QR_OPTIONS);
}
