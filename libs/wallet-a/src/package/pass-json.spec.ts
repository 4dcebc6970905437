import type { Pass } from '@app/passes';
import { buildPassJson, type PassJsonContext } from './pass-json';

const pass = {
  id: 'pass-1',
  deletedTime: null,
  passMetadata: {
    organizationName: 'Brand',
    description: 'Card',
    topField: { key: 'points', label: 'Points', value: '0', changeMessage: 'Now %@' },
    secondaryFields: [
      { key: 'tier', label: 'Tier', value: 'Basic' },
      { key: 'city', label: 'City', value: 'Paris' },
    ],
    qrUrl: 'https://brand.example/q',
    qrText: 'Q',
  },
} as unknown as Pass;

const context: PassJsonContext = {
  passTypeIdentifier: 'pass.example',
  teamIdentifier: 'TEAM',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'token-token-token',
  locations: [],
};

type Card = Record<string, { key: string; value: string; changeMessage?: string }[]>;

describe("a holder's pass.json", () => {
  it("puts the holder's values into the fields' values, keeping their changeMessage", () => {
    const json = buildPassJson(pass, {
      ...context,
      holder: {
        serialNumber: 'abc123',
        fieldValues: { points: '42', city: 'Lyon' },
        barcodeValue: 'member-7',
        barcodeText: null,
        voided: false,
      },
    });
    expect(json.serialNumber).toBe('abc123');
    const card = json.storeCard as Card;
    expect(card.headerFields).toEqual([
      { key: 'points', label: 'Points', value: '42', changeMessage: 'Now %@' },
    ]);
    expect(card.secondaryFields.map((field) => field.value)).toEqual(['Basic', 'Lyon']);
    // Barcode text not set: the pass's.
    expect(json.barcodes).toEqual([expect.objectContaining({ message: 'member-7', altText: 'Q' })]);
    expect(json.voided).toBeUndefined();
  });

  it('declares ISO-8859-1 for a barcode message it holds, UTF-8 for any other', () => {
    const barcodeOf = (barcodeValue: string) =>
      (
        buildPassJson(pass, {
          ...context,
          holder: {
            serialNumber: 'abc',
            fieldValues: {},
            barcodeValue,
            barcodeText: null,
            voided: false,
          },
        }).barcodes as { message: string; messageEncoding: string }[]
      )[0];
    expect(barcodeOf('member-7')).toMatchObject({ messageEncoding: 'iso-8859-1' });
    expect(barcodeOf('Café 10442')).toMatchObject({ messageEncoding: 'iso-8859-1' });
    // Wallet cannot convert these to ISO-8859-1 and would show no barcode at all.
    expect(barcodeOf('Жанна 10442')).toEqual(
      expect.objectContaining({ message: 'Жанна 10442', messageEncoding: 'utf-8' }),
    );
    expect(barcodeOf('Member 😀')).toMatchObject({ messageEncoding: 'utf-8' });
    // The shared pass's own barcode (a URL may hold any character) follows the same rule.
    const shared = buildPassJson(
      { ...pass, passMetadata: { ...pass.passMetadata, qrUrl: 'https://пример.рф/q' } },
      context,
    );
    expect(shared.barcodes).toEqual([
      expect.objectContaining({ message: 'https://пример.рф/q', messageEncoding: 'utf-8' }),
    ]);
  });

  it("is voided for a voided holder, and the shared pass's is unchanged", () => {
    const voided = buildPassJson(pass, {
      ...context,
      holder: {
        serialNumber: 'abc123',
        fieldValues: {},
        barcodeValue: null,
        barcodeText: null,
        voided: true,
      },
    });
    expect(voided.voided).toBe(true);
    expect(voided.barcodes).toEqual([
      expect.objectContaining({ message: 'https://brand.example/q', altText: 'Q' }),
    ]);
    const shared = buildPassJson(pass, context);
    expect(shared.serialNumber).toBe('pass-1');
    expect((shared.storeCard as Card).headerFields[0].value).toBe('0');
  });
});
