import type { Pass, PassMetadataDto } from '@app/passes';
import { PKPass } from 'passkit-generator';
import {
  WALLET_A_KIND_NAMES,
  WALLET_A_KINDS,
  type WalletAKind,
} from '../../../../test/support/wallet-a-kinds';
// The end-to-end suites' package reader: unzip, and openssl to verify as a device would.
import { openBundle, openPackage, sha1 } from '../../../../test/support/pkpass';
import { generateDevelopmentMaterial } from '../signing/signing-material';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildPassJson, PK_BARCODE_FORMATS } from './pass-json';
import { passSigner, writePkpass, writePkpasses } from './pkpass-archive';

const material = generateDevelopmentMaterial('pass.example.unit', 'TEAMUNIT01');

/** A pass using every part of pass.json the service writes. */
const pass = {
  id: 'pass-1',
  deletedTime: null,
  passMetadata: {
    description: 'Loyalty card',
    organizationName: 'Brand Ltd',
    backgroundColor: '#102030',
    displayTextColor: '#FFFFFF',
    topField: { key: 'points', label: 'Points', value: '100', changeMessage: 'Now %@' },
    headerFields: [{ key: 'level', label: 'Level', value: '2' }],
    primaryFields: [{ key: 'name', label: 'Member', value: 'Maya' }],
    secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
    auxiliaryFields: [
      {
        key: 'since',
        label: 'Since',
        value: '2026-05-01T19:30:00+02:00',
        dateStyle: 'medium',
        timeStyle: 'short',
      },
    ],
    relevantDate: '2026-05-01T19:30:00+02:00',
    expirationDate: '2026-12-31T23:59:00Z',
    backFields: [
      {
        key: 'links',
        label: 'Links',
        value: [{ text: 'Stores', link: 'https://brand.example/stores' }],
      },
    ],
    qrUrl: 'https://brand.example/member/1',
    qrText: 'Member 1',
  },
} as unknown as Pass;

const passJsonOf = (source: Pass) =>
  buildPassJson(source, {
    passTypeIdentifier: 'pass.example.unit',
    teamIdentifier: 'TEAMUNIT01',
    webServiceURL: 'https://wallet.test/passkit',
    authenticationToken: 'a'.repeat(32),
    locations: [{ latitude: 48.85, longitude: 2.35, altitude: null, relevantText: 'Near' }],
    messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
  });
const passJson = passJsonOf(pass);

/** passkit-generator writes the dates it reads back as UTC with milliseconds: the same instants. */
const utc = (date: unknown) => new Date(date as string).toISOString();

/**
 * The time zones under the names Apple's Pass Builder reads: passkit-generator 3.6's schema is
 * older than those names (it knows Apple's documented `…LocationTimeZone` only) and drops them.
 * `pass-builder-rules.e2e-spec.ts` holds them to Pass Builder's own rules instead.
 */
const PASS_BUILDER_TAGS = ['departureAirportTimeZone', 'destinationAirportTimeZone'];
const withoutPassBuilderTags = (semantics: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(semantics).filter(([key]) => !PASS_BUILDER_TAGS.includes(key)));

const asWritten = (json: Record<string, unknown>) => ({
  ...json,
  ...(json.semantics
    ? { semantics: withoutPassBuilderTags(json.semantics as Record<string, unknown>) }
    : {}),
  ...(json.relevantDate ? { relevantDate: utc(json.relevantDate) } : {}),
  ...(json.expirationDate ? { expirationDate: utc(json.expirationDate) } : {}),
  ...(Array.isArray(json.relevantDates)
    ? {
        relevantDates: (json.relevantDates as Record<string, string>[]).map((entry) =>
          Object.fromEntries(Object.entries(entry).map(([key, date]) => [key, utc(date)])),
        ),
      }
    : {}),
  // It writes every event ticket with iOS 18's additional-info row, empty when we send none.
  ...(json.eventTicket ? { eventTicket: { additionalInfoFields: [], ...json.eventTicket } } : {}),
  // And the poster generic pass with the classic rows, which its layout has not.
  ...(json.posterGeneric
    ? { posterGeneric: { secondaryFields: [], auxiliaryFields: [], ...json.posterGeneric } }
    : {}),
  ...(Array.isArray(json.upcomingPassInformation)
    ? {
        upcomingPassInformation: (
          json.upcomingPassInformation as { dateInformation: { date: string } }[]
        ).map((entry) => ({
          ...entry,
          dateInformation: { date: utc(entry.dateInformation.date) },
        })),
      }
    : {}),
});

/**
 * What passkit-generator writes back of `json`, and what it warned about besides the missing
 * icon (these packages have no images). It validates pass.json against Apple's schema, warning
 * about and stripping whatever does not fit, so what it writes must be exactly what we wrote.
 */
function throughPasskitGenerator(json: Record<string, unknown>): {
  written: unknown;
  warnings: unknown[];
} {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const reference = new PKPass(
      { 'pass.json': Buffer.from(JSON.stringify(json)) },
      { wwdr: material.wwdrPem, signerCert: material.certPem, signerKey: material.keyPem },
    );
    const written = JSON.parse(reference.getAsRaw()['pass.json'].toString('utf8')) as unknown;
    const warnings = warn.mock.calls.filter(([message]) => !String(message).includes('icon'));
    return { written, warnings };
  } finally {
    warn.mockRestore();
  }
}

describe('pkpass archive', () => {
  it.each(['QR', 'PDF417', 'Aztec', 'Code128'])(
    'writes pass.json with a %s barcode that an independent pass library accepts unchanged',
    (barcodeFormat) => {
      const json = passJsonOf({
        ...pass,
        passMetadata: { ...pass.passMetadata, barcodeFormat },
      } as Pass);
      const { written, warnings } = throughPasskitGenerator(json);
      expect(warnings).toEqual([]);
      expect(written).toEqual(asWritten(json));
    },
  );

  // Valid messages of the iOS 27 formats, and the fallback each is shown with.
  it.each([
    ['EAN13', '4006381333931', 'QR'],
    ['Code39', 'STAFF-0042', 'Code128'],
    ['Codabar', 'A40156B', 'QR'],
    ['ITF', '15400141288763', 'Code128'],
  ] as const)(
    'writes an iOS 27 %s barcode and its fallback, which an independent pass library accepts unchanged',
    (barcodeFormat, qrUrl, barcodeFallbackFormat) => {
      const json = passJsonOf({
        ...pass,
        passMetadata: { ...pass.passMetadata, barcodeFormat, barcodeFallbackFormat, qrUrl },
      });
      expect((json.barcodes as { format: string }[]).map(({ format }) => format)).toEqual([
        PK_BARCODE_FORMATS[barcodeFormat],
        PK_BARCODE_FORMATS[barcodeFallbackFormat],
      ]);
      const { written, warnings } = throughPasskitGenerator(json);
      expect(warnings).toEqual([]);
      expect(written).toEqual(asWritten(json));
    },
  );

  it("names every format as passkit-generator's schema does, from Apple's Pass.Barcodes page", () => {
    // passkit-generator 3.6's BarcodeFormat (its @see: developer.apple.com/documentation/
    // walletpasses/pass/barcodes), read from its typings rather than copied here; its joi
    // pattern is unanchored, so the exact strings are checked here.
    const typings = readFileSync(
      join(dirname(require.resolve('passkit-generator')), '..', 'types/schemas/Barcode.d.ts'),
      'utf8',
    );
    const start = typings.indexOf('type BarcodeFormat');
    const union = typings.slice(start, typings.indexOf(';', start));
    const theirs = [...union.matchAll(/"(PKBarcodeFormat\w+)"/g)].map(([, name]) => name);
    expect(theirs).toHaveLength(8);
    expect(Object.values(PK_BARCODE_FORMATS).sort()).toEqual(theirs.sort());
    expect(PK_BARCODE_FORMATS.ITF).toBe('PKBarcodeFormatI2of5');
  });

  it('writes pass.json that an independent pass library accepts unchanged', () => {
    const { written, warnings } = throughPasskitGenerator(passJson);
    expect(warnings).toEqual([]);
    expect(written).toEqual(asWritten(passJson));
  });

  const kindPass = (metadata: PassMetadataDto, images: string[]): Pass =>
    ({
      id: 'pass-1',
      deletedTime: null,
      passMetadata: metadata,
      uploadInfoList: images.map((fileName) => ({ fileName, uploadKey: fileName })),
    }) as unknown as Pass;

  it.each(
    WALLET_A_KIND_NAMES.flatMap((name) => [[name, 'shared'] as const, [name, 'holder'] as const]),
  )(
    'writes the pass.json of the %s kind (%s) that an independent pass library accepts unchanged',
    (name, copy) => {
      const kind: WalletAKind = WALLET_A_KINDS[name];
      const json = buildPassJson(kindPass(kind.metadata, ['logo.png']), {
        passTypeIdentifier: 'pass.example.unit',
        teamIdentifier: 'TEAMUNIT01',
        webServiceURL: 'https://wallet.test/passkit',
        authenticationToken: 'a'.repeat(32),
        locations: [],
        messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
        ...(copy === 'holder'
          ? {
              holder: {
                serialNumber: 'holder-1',
                fieldValues: kind.holderValues,
                barcodeValue: null,
                barcodeText: null,
                voided: false,
                relevantDate: '2026-07-02T19:30:00+02:00',
                expirationDate: '2026-07-03T04:00:00+02:00',
                passengerName: kind.passengerName ?? null,
              },
            }
          : {}),
      });
      const { written, warnings } = throughPasskitGenerator(json);
      expect(warnings).toEqual([]);
      expect(written).toEqual(asWritten(json));
      expect(json[kind.style]).toBeDefined();
    },
  );

  it('writes a poster event ticket that an independent pass library accepts unchanged', () => {
    const json = buildPassJson(
      kindPass(WALLET_A_KINDS.eventTicket.metadata, ['logo.png', 'artwork.png']),
      {
        passTypeIdentifier: 'pass.example.unit',
        teamIdentifier: 'TEAMUNIT01',
        webServiceURL: 'https://wallet.test/passkit',
        authenticationToken: 'a'.repeat(32),
        locations: [],
      },
    );
    expect(json.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
    const { written, warnings } = throughPasskitGenerator(json);
    expect(warnings).toEqual([]);
    expect(written).toEqual(asWritten(json));
  });

  it('writes a poster generic pass with featured actions that an independent pass library accepts unchanged', () => {
    const json = buildPassJson(
      kindPass(
        {
          ...WALLET_A_KINDS.generic.metadata,
          featuredActions: [
            { type: 'membershipBenefits', url: 'https://brand.example/benefits' },
            { type: 'viewOffersRewards', url: 'https://brand.example/offers' },
          ],
        },
        ['logo.png', 'artwork.png'],
      ),
      {
        passTypeIdentifier: 'pass.example.unit',
        teamIdentifier: 'TEAMUNIT01',
        webServiceURL: 'https://wallet.test/passkit',
        authenticationToken: 'a'.repeat(32),
        locations: [],
        messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
      },
    );
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['posterGeneric', 'generic']));
    expect(json.featuredActions).toHaveLength(2);
    // passkit-generator 3.6 reads iOS 27's posterGeneric, footerFields and featuredActions.
    const { written, warnings } = throughPasskitGenerator(json);
    expect(warnings).toEqual([]);
    expect(written).toEqual(asWritten(json));
  });

  it("writes a holder's semantic boarding pass whose every tag passkit-generator's copy of Apple's schema knows", () => {
    const kind: WalletAKind = WALLET_A_KINDS.semanticFlight;
    const json = buildPassJson(kindPass(kind.metadata, ['logo.png']), {
      passTypeIdentifier: 'pass.example.unit',
      teamIdentifier: 'TEAMUNIT01',
      webServiceURL: 'https://wallet.test/passkit',
      authenticationToken: 'a'.repeat(32),
      locations: [],
      holder: {
        serialNumber: 'holder-1',
        fieldValues: kind.holderValues,
        barcodeValue: null,
        barcodeText: null,
        voided: false,
        passengerName: kind.passengerName,
      },
    });
    expect(json.preferredStyleSchemes).toEqual(['semanticBoardingPass', 'boardingPass']);
    // What the semantic layout shows (Apple's SemanticTags, iOS 26), each named here so a
    // renamed key fails: passkit-generator drops and warns about a tag its schema lacks.
    const layoutTags = [
      'airlineCode',
      'flightNumber',
      'originalDepartureDate',
      'originalArrivalDate',
      'originalBoardingDate',
      'departureAirportCode',
      'destinationAirportCode',
      'departureCityName',
      'destinationCityName',
      'departureLocationTimeZone',
      'destinationLocationTimeZone',
      'departureGate',
      'destinationGate',
      'seats',
      'passengerName',
    ];
    const semantics = json.semantics as Record<string, unknown>;
    expect(Object.keys(semantics)).toEqual(expect.arrayContaining(layoutTags));
    const { written, warnings } = throughPasskitGenerator(json);
    expect(warnings).toEqual([]);
    expect(written).toEqual(asWritten(json));
    expect(Object.keys((written as { semantics: object }).semantics)).toEqual(
      Object.keys(withoutPassBuilderTags(semantics)),
    );
    // The check means something: a tag Apple has no such name for is dropped.
    const misspelt = throughPasskitGenerator({
      ...json,
      semantics: { ...semantics, departureTimeZone: 'Europe/Zurich' },
    });
    expect((misspelt.written as { semantics: object }).semantics).not.toHaveProperty(
      'departureTimeZone',
    );
  });

  it('zips every file with a manifest of their SHA-1s and a signature over it', async () => {
    const image = Buffer.from('89504e47', 'hex');
    const files = new Map([
      ['pass.json', Buffer.from(JSON.stringify(passJson))],
      ['icon.png', image],
    ]);
    const archive = await writePkpass(files, passSigner(material), new Date());

    const opened = openPackage(archive, material.wwdrPem);
    expect(opened.signatureVerifies).toBe(true);
    expect(opened.manifest).toEqual({
      'pass.json': sha1(files.get('pass.json') as Buffer),
      'icon.png': sha1(image),
    });
    expect(opened.files['icon.png'].equals(image)).toBe(true);
  });

  it('bundles packages as Apple describes .pkpasses: a flat zip of the .pkpass files', async () => {
    const signer = passSigner(material);
    const packages: [string, Buffer][] = [];
    for (const serial of ['serial-1', 'serial-2', 'serial-3']) {
      const json = { ...passJson, serialNumber: serial };
      const files = new Map([['pass.json', Buffer.from(JSON.stringify(json))]]);
      packages.push([`${serial}.pkpass`, await writePkpass(files, signer, new Date())]);
    }
    const entries = openBundle(await writePkpasses(packages, new Date()));
    expect(entries.map((entry) => entry.name)).toEqual(packages.map(([name]) => name));
    entries.forEach((entry, index) => {
      expect(entry.content.equals(packages[index][1])).toBe(true);
      const opened = openPackage(entry.content, material.wwdrPem);
      expect(opened.signatureVerifies).toBe(true);
      expect(opened.passJson.serialNumber).toBe(`serial-${index + 1}`);
    });
  });
});
