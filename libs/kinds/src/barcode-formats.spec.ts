import {
  barcodeFormatsFor,
  barcodeProblem,
  gs1CheckDigit,
  isGs1Number,
  BARCODE_RULES,
} from './barcode-formats';
import { BARCODE_FORMATS, type BarcodeFormat } from './kind-names';

describe('what each barcode format carries', () => {
  const accepts = (format: BarcodeFormat, message: string) =>
    expect(barcodeProblem(format, message)).toBeNull();
  const refuses = (format: BarcodeFormat, message: string, problem: RegExp) =>
    expect(barcodeProblem(format, message)).toMatch(problem);

  it('takes any text in QR, PDF417 and Aztec, ASCII in Code128', () => {
    for (const format of ['QR', 'PDF417', 'Aztec'] as const) {
      accepts(format, 'https://brand.example/member/Жанна 😀');
    }
    accepts('Code128', 'MEMBER-123 ~!');
    refuses('Code128', 'Café-123', /ASCII/);
  });

  it('takes EAN13 as 13 digits ending in their GS1 check digit', () => {
    accepts('EAN13', '4006381333931');
    accepts('EAN13', '5901234123457');
    refuses('EAN13', '4006381333932', /check digit.*\(1 for these 12 digits\)/);
    refuses('EAN13', '400638133393', /13 digits/);
    refuses('EAN13', '40063813339310', /13 digits/);
    refuses('EAN13', '400638133393A', /13 digits/);
    refuses('EAN13', '４００６３８１３３３９３１', /13 digits/);
  });

  it("takes Code39's 43 characters, no lower case and no start/stop asterisk", () => {
    accepts('Code39', 'STAFF-0042');
    accepts('Code39', 'A B.C$/+%-9');
    refuses('Code39', 'staff-0042', /capital letters/);
    refuses('Code39', '*STAFF*', /Code39/);
    refuses('Code39', 'STAFF_1', /Code39/);
  });

  it("takes Codabar's characters, between start and stop letters A-D or without them", () => {
    accepts('Codabar', '40156');
    accepts('Codabar', 'A40156B');
    accepts('Codabar', 'D12-34$:/.+5C');
    refuses('Codabar', 'A40156', /start and a stop letter/);
    refuses('Codabar', '40156B', /Codabar/);
    refuses('Codabar', 'AB', /Codabar/);
    refuses('Codabar', 'E40156E', /Codabar/);
    refuses('Codabar', '4015 6', /Codabar/);
  });

  it('takes ITF as an even number of digits', () => {
    accepts('ITF', '12');
    accepts('ITF', '15400141288763');
    accepts('ITF', '1234567890');
    refuses('ITF', '123', /even number of digits/);
    refuses('ITF', '12-34', /even number of digits/);
  });

  it('takes an empty message in every format: no barcode at all', () => {
    for (const format of BARCODE_FORMATS) accepts(format, '');
  });

  it('computes GS1 check digits (weights 3 and 1 from the right)', () => {
    expect(gs1CheckDigit('400638133393')).toBe(1);
    expect(gs1CheckDigit('1540014128876')).toBe(3);
    expect(gs1CheckDigit('000000000000')).toBe(0);
    expect(isGs1Number('15400141288763', 14)).toBe(true);
    expect(isGs1Number('15400141288764', 14)).toBe(false);
    expect(isGs1Number('4006381333931', 14)).toBe(false);
  });
});

describe('the formats a pass shows a message in', () => {
  const IOS_27 = ['EAN13', 'Code39', 'Codabar', 'ITF'] as const;

  it('marks exactly the four formats of iOS 27 as needing a fallback', () => {
    expect(BARCODE_FORMATS.filter((format) => BARCODE_RULES[format].iOS27)).toEqual(IOS_27);
  });

  it('lists an iOS 27 format first, then its fallback (QR unless Code128 is asked for)', () => {
    expect(barcodeFormatsFor({ barcodeFormat: 'EAN13' }, '4006381333931')).toEqual(['EAN13', 'QR']);
    expect(
      barcodeFormatsFor({ barcodeFormat: 'ITF', barcodeFallbackFormat: 'Code128' }, '1234'),
    ).toEqual(['ITF', 'Code128']);
  });

  it('shows the fallback alone where the iOS 27 format cannot carry the message', () => {
    // A holder's value written before its pass became an EAN13 pass.
    expect(
      barcodeFormatsFor({ barcodeFormat: 'EAN13', barcodeFallbackFormat: 'Code128' }, 'M-7'),
    ).toEqual(['Code128']);
  });

  it('shows the older formats alone, whatever the fallback says', () => {
    expect(barcodeFormatsFor({}, 'x')).toEqual(['QR']);
    for (const format of ['QR', 'PDF417', 'Aztec', 'Code128'] as const) {
      expect(
        barcodeFormatsFor({ barcodeFormat: format, barcodeFallbackFormat: 'Code128' }, 'x'),
      ).toEqual([format]);
    }
  });
});
