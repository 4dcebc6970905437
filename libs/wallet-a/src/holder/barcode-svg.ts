import { BoundedMap } from '@app/core';
import bwipjs from 'bwip-js';
import { barcodeEncoding, type PassBarcode, type PKBarcodeFormat } from '../package/pass-json';
import { barcodeSvg as qrSvg } from './qr-svg';

/** A barcode drawn for the holder page. */
export interface BarcodeDrawing {
  /** Inline SVG: paths with presentation attributes only, so the page's CSP needs nothing. */
  svg: string;
  /** What it is, for screen readers ("EAN-13 barcode"). */
  name: string;
  /** A one-dimensional code: wider than high, with its message printed under it. */
  linear: boolean;
}

interface Drawing {
  name: string;
  linear: boolean;
  /** bwip-js's encoder; absent: QR, drawn by `qrcode` byte for byte as Wallet does. */
  bcid?: string;
  /** The text the encoder takes for the message, when it differs. */
  text?(message: string): string;
}

/**
 * How the page draws each pass.json format, as Wallet shows it: bwip-js for all but QR (whose
 * drawing by `qrcode` the page had before, matching Wallet's bytes and error correction).
 */
const DRAWINGS = {
  PKBarcodeFormatQR: { name: 'QR code', linear: false },
  PKBarcodeFormatPDF417: { name: 'PDF417 code', linear: false, bcid: 'pdf417' },
  PKBarcodeFormatAztec: { name: 'Aztec code', linear: false, bcid: 'azteccode' },
  PKBarcodeFormatCode128: { name: 'Code 128 barcode', linear: true, bcid: 'code128' },
  PKBarcodeFormatEAN13: { name: 'EAN-13 barcode', linear: true, bcid: 'ean13' },
  PKBarcodeFormatCode39: { name: 'Code 39 barcode', linear: true, bcid: 'code39' },
  PKBarcodeFormatCodabar: {
    name: 'Codabar barcode',
    linear: true,
    bcid: 'rationalizedCodabar',
    // A Codabar symbol starts and stops with a letter A-D; a message without them gets A.
    text: (message) => (/^[A-D]/.test(message) ? message : `A${message}A`),
  },
  PKBarcodeFormatI2of5: {
    name: 'Interleaved 2 of 5 barcode',
    linear: true,
    bcid: 'interleaved2of5',
  },
} satisfies Record<PKBarcodeFormat, Drawing>;

/**
 * bwip-js's options: two pixels a module; a linear code 15 mm high with a quiet zone of ten
 * modules each side (scanners need it); a two-dimensional code its own shape with two modules
 * round it (the white box of the page adds the rest).
 */
function options(bcid: string, linear: boolean, text: string): bwipjs.RenderOptions {
  const base = { bcid, text, binarytext: true, scale: 2 };
  return linear
    ? { ...base, height: 15, paddingwidth: 10, paddingheight: 2 }
    : { ...base, padding: 2 };
}

/**
 * Drawn codes by format, encoding and message: a large PDF417 or Aztec takes a second. Bounded by
 * their characters; the entry bound only keeps a flood of tiny codes from costing more in keys.
 */
const drawn = new BoundedMap<string, string>(100_000, {
  maxWeight: 8_000_000,
  weigh: (svg) => svg.length,
});

/**
 * The barcode in its own format, with the bytes the package declares (`messageEncoding`:
 * ISO-8859-1, or UTF-8 for a message it cannot hold). Null when the format cannot draw the
 * message (a value too long for it, or one written before its pass changed format): the page
 * then shows the message as text, never an error.
 */
export async function drawBarcode(barcode: PassBarcode): Promise<BarcodeDrawing | null> {
  const drawing: Drawing = DRAWINGS[barcode.format];
  const described = { name: drawing.name, linear: drawing.linear };
  if (drawing.bcid === undefined) return { ...described, svg: await qrSvg(barcode) };
  // A message ISO-8859-1 cannot hold is never drawn as bytes that mean something else.
  const latin1 =
    barcode.messageEncoding === 'iso-8859-1' && barcodeEncoding(barcode.message) === 'iso-8859-1';
  const bytes = Buffer.from(barcode.message, latin1 ? 'latin1' : 'utf8').toString('latin1');
  const key = `${barcode.format}\n${latin1 ? 'l' : 'u'}\n${bytes}`;
  let svg = drawn.get(key);
  if (svg === undefined) {
    try {
      svg = bwipjs.toSVG(options(drawing.bcid, drawing.linear, drawing.text?.(bytes) ?? bytes));
    } catch {
      // bwip-js refuses what its format cannot carry (`bwipp.<encoder>badCharacter`, ...).
      return null;
    }
    drawn.set(key, svg);
  }
  return { ...described, svg };
}
