import bwipjs from 'bwip-js';
import { PK_BARCODE_FORMATS, type PassBarcode, type PKBarcodeFormat } from '../package/pass-json';
import { drawBarcode } from './barcode-svg';
import { barcodeSvg } from './qr-svg';

const of = (format: PKBarcodeFormat, message: string): PassBarcode => ({
  format,
  message,
  messageEncoding: 'iso-8859-1',
});

/** A message each format carries. */
const MESSAGES: Record<PKBarcodeFormat, string> = {
  PKBarcodeFormatQR: 'https://brand.example/member/1',
  PKBarcodeFormatPDF417: 'M1PASSENGER/BRAND ABC123 LHRSFOBA 0123',
  PKBarcodeFormatAztec: 'TICKET-10442',
  PKBarcodeFormatCode128: 'MEMBER-10442',
  PKBarcodeFormatEAN13: '4006381333931',
  PKBarcodeFormatCode39: 'STAFF-0042',
  PKBarcodeFormatCodabar: 'A40156B',
  PKBarcodeFormatI2of5: '15400141288763',
};
const FORMATS = Object.values(PK_BARCODE_FORMATS);

describe('drawBarcode', () => {
  it.each(FORMATS)('draws %s as SVG paths the page can inline under its CSP', async (format) => {
    const drawn = await drawBarcode(of(format, MESSAGES[format]));
    expect(drawn).not.toBeNull();
    const svg = drawn!.svg;
    expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
    // Only shapes with presentation attributes: no script, no style, no text, no link.
    expect(svg).not.toMatch(/<(script|style|text|a|image|foreignObject)\b|style=|on\w+=|href/i);
    expect(svg).toMatch(/<path /);
  });

  it('draws each format differently, one- and two-dimensional codes in their shapes', async () => {
    const drawings = await Promise.all(
      FORMATS.map(async (format) => (await drawBarcode(of(format, MESSAGES[format])))!),
    );
    expect(new Set(drawings.map(({ svg }) => svg)).size).toBe(FORMATS.length);
    const shape = (svg: string) => {
      const [, width, height] = /viewBox="0 0 (\d+) (\d+)"/.exec(svg)!.map(Number);
      return width / height;
    };
    drawings.forEach((drawing, index) => {
      const format = FORMATS[index];
      const linear = ![
        'PKBarcodeFormatQR',
        'PKBarcodeFormatPDF417',
        'PKBarcodeFormatAztec',
      ].includes(format);
      expect([format, drawing.linear]).toEqual([format, linear]);
      if (linear) expect(shape(drawing.svg)).toBeGreaterThan(1.5);
    });
    expect(shape(drawings[FORMATS.indexOf('PKBarcodeFormatQR')].svg)).toBe(1);
    expect(shape(drawings[FORMATS.indexOf('PKBarcodeFormatAztec')].svg)).toBe(1);
    expect(drawings.map(({ name }) => name)).toEqual([
      'QR code',
      'PDF417 code',
      'Aztec code',
      'Code 128 barcode',
      'EAN-13 barcode',
      'Code 39 barcode',
      'Codabar barcode',
      'Interleaved 2 of 5 barcode',
    ]);
  });

  it('draws QR codes as before, byte for byte as Wallet (qrcode)', async () => {
    const barcode = of('PKBarcodeFormatQR', 'Café 10442');
    expect((await drawBarcode(barcode))!.svg).toBe(await barcodeSvg(barcode));
  });

  it('draws the bytes the package declares: ISO-8859-1, or UTF-8 where it cannot hold them', async () => {
    const bytes = (message: string, encoding: BufferEncoding) =>
      bwipjs.toSVG({
        bcid: 'pdf417',
        text: Buffer.from(message, encoding).toString('latin1'),
        binarytext: true,
        scale: 2,
        padding: 2,
      });
    const latin = (await drawBarcode(of('PKBarcodeFormatPDF417', 'Café 10442')))!.svg;
    expect(latin).toBe(bytes('Café 10442', 'latin1'));
    expect(latin).not.toBe(bytes('Café 10442', 'utf8'));
    const wide = await drawBarcode({
      ...of('PKBarcodeFormatAztec', 'Жанна 10442'),
      messageEncoding: 'utf-8',
    });
    expect(wide).not.toBeNull();
  });

  it('gives a Codabar message without start and stop letters the letter A', async () => {
    const bare = (await drawBarcode(of('PKBarcodeFormatCodabar', '40156')))!.svg;
    expect(bare).toBe((await drawBarcode(of('PKBarcodeFormatCodabar', 'A40156A')))!.svg);
  });

  it.each([
    ['an EAN13 with a wrong check digit', 'PKBarcodeFormatEAN13', '4006381333932'],
    ['an EAN13 of letters', 'PKBarcodeFormatEAN13', 'member-7'],
    ['a Code39 in lower case', 'PKBarcodeFormatCode39', 'lower case'],
    ['a Codabar with a start and no stop', 'PKBarcodeFormatCodabar', 'A40156'],
    ['an ITF with a dash', 'PKBarcodeFormatI2of5', '12-34'],
    ['a Code128 too long for it', 'PKBarcodeFormatCode128', 'x'.repeat(2048)],
    ['a PDF417 too long for it', 'PKBarcodeFormatPDF417', 'x'.repeat(2048)],
  ] as const)('returns null for %s, never throws', async (_, format, message) => {
    await expect(drawBarcode(of(format, message))).resolves.toBeNull();
  });
});
