import { type PassengerName } from '@app/kinds';
import { Holder, Pass, type PassMetadataDto } from '@app/passes';
import { buildPassFiles } from '@app/wallet-a/package/pass-files';
import type { PassJsonContext } from '@app/wallet-a/package/pass-json';
import {
  buildHolderObjectContent,
  buildObjectContent,
  buildPassClass,
  classTypeFor,
  holderObjectId,
  type ClassType,
} from '@app/wallet-b';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { passBuilderIssues } from './support/pass-builder-rules';
import { KIND_FIXTURES, KIND_NAMES } from './support/pass-kind-fixtures';
import { makePng } from './support/png';
import { WALLET_A_KIND_NAMES, WALLET_A_KINDS, type WalletAKind } from './support/wallet-a-kinds';

/**
 * What holders get of every kind's fixture, held byte for byte in test/golden/pass-kinds/: the
 * WalletA pass.json and pass.strings and the WalletB class, object and holder's object, of the
 * shared pass and of a holder's copy (a holder on a day of their own), plain and localized, and
 * the poster event ticket and the poster generic pass with featured actions. A change of what
 * a kind shows makes a golden file differ; a refactoring must leave them all as they are.
 * `GOLDEN_WRITE=1` (`npm run golden:pass-kinds`) writes the files from the code instead of
 * comparing.
 */

const GOLDEN_DIR = join(__dirname, 'golden', 'pass-kinds');
const WRITE = process.env.GOLDEN_WRITE === '1';

const CONTEXT: PassJsonContext = {
  passTypeIdentifier: 'pass.example.golden',
  teamIdentifier: 'TEAMGOLDEN',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'a'.repeat(32),
  locations: [{ latitude: 48.85, longitude: 2.35, altitude: null, relevantText: 'Near' }],
};
const ISSUER = '3388000000012345678';
const IMAGES = { logoUrl: 'https://files.test/logo.png', heroUrl: 'https://files.test/strip.png' };
const CALLBACK_URL = 'https://wallet.test/callbacks/wallet-b';
/** The shared pass's objects get a random id at each read: a fixed one here. */
const SHARED_OBJECT_ID = `${ISSUER}.pass-1-0000000000000000`;

/** A holder on a day of their own: a ticket for the next day, ending the morning after. */
const HOLDER_DAY = {
  relevantDate: '2026-07-02T19:30:00+02:00',
  expirationDate: '2026-07-03T04:00:00+02:00',
};
/** When the classes are written: a festival's is dated by its next event at this moment. */
const NOW = new Date('2026-07-11T09:00:00+02:00');
/** The latest notification of a holder's copy, the first back field. */
const MESSAGE_FIELD = { key: 'notification', value: 'Doors open at 18:30', changeMessage: '%@' };

function passOf(metadata: PassMetadataDto, imageNames: string[] = ['logo.png']): Pass {
  return Object.assign(new Pass(), {
    id: 'pass-1',
    passName: 'Summer pass',
    status: 'Published',
    deletedTime: null,
    passMetadata: metadata,
    uploadInfoList: imageNames.map((fileName) => ({ fileName, uploadKey: `upload-${fileName}` })),
  });
}

function holderOf(
  fieldValues: Record<string, string>,
  passengerName: PassengerName | null = null,
): Holder {
  return Object.assign(new Holder(), {
    passengerName,
    id: 'holder-1',
    serialNumber: '0123456789abcdef0123456789abcdef',
    status: 'Active',
    fieldValues,
    barcodeValue: 'HOLDER-1',
    barcodeText: 'Holder 1',
    ...HOLDER_DAY,
  });
}

/**
 * Every text of the pass translated into German: description, organisation and pass name, each
 * face field's label and value and each back field's label.
 */
function localizedOf(metadata: PassMetadataDto): PassMetadataDto {
  const face = [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.headerFields ?? []),
    ...(metadata.primaryFields ?? []),
    ...(metadata.secondaryFields ?? []),
    ...(metadata.auxiliaryFields ?? []),
  ];
  return {
    ...metadata,
    localizations: {
      de: {
        description: 'Markenkarte',
        organizationName: 'Marke GmbH',
        passName: 'Sommerkarte',
        fields: Object.fromEntries([
          ...face.map((field) => [
            field.key,
            { label: `DE ${field.label ?? field.key}`, value: `DE ${field.value}` },
          ]),
          ...(metadata.backFields ?? []).map((field) => [
            field.key,
            { label: `DE ${field.label ?? field.key}` },
          ]),
        ]),
      },
    },
  };
}

/** A package's pass.json and pass.strings files, as PassPackageService builds them. */
function walletAFiles(pass: Pass, holder?: Holder): Record<string, unknown> {
  const { passJson, strings } = buildPassFiles(pass, {
    ...CONTEXT,
    ...(holder === undefined
      ? {}
      : {
          messageField: MESSAGE_FIELD,
          holder: {
            serialNumber: holder.serialNumber,
            fieldValues: holder.fieldValues,
            barcodeValue: holder.barcodeValue,
            barcodeText: holder.barcodeText,
            voided: false,
            relevantDate: holder.relevantDate,
            expirationDate: holder.expirationDate,
            passengerName: holder.passengerName,
          },
        }),
  });
  // pass.json's exact bytes, read back only to be shown indented.
  const files: Record<string, unknown> = { 'pass.json': JSON.parse(passJson.toString('utf8')) };
  for (const [name, bytes] of strings) files[name] = stringsLines(bytes);
  return files;
}

/**
 * A pass.strings file as the lines of its text. The file is UTF-16LE after a byte order mark;
 * {@link stringsBytes} makes the bytes from the lines again, so comparing lines compares bytes.
 */
function stringsLines(bytes: Buffer): string[] {
  expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
  const lines = bytes.subarray(2).toString('utf16le').split('\n');
  expect(stringsBytes(lines).equals(bytes)).toBe(true);
  return lines;
}

function stringsBytes(lines: string[]): Buffer {
  return Buffer.from(`\ufeff${lines.join('\n')}`, 'utf16le');
}

/** The class, the shared pass's object and the holder's object of a pass at Google. */
function walletBResources(pass: Pass, type: ClassType, holder: Holder): Record<string, unknown> {
  const classId = `${ISSUER}.${pass.id}`;
  return {
    class: buildPassClass(pass, type, ISSUER, IMAGES, CALLBACK_URL, NOW),
    object: { id: SHARED_OBJECT_ID, classId, ...buildObjectContent(pass, type, IMAGES) },
    holderObject: {
      id: holderObjectId(ISSUER, holder),
      classId,
      ...buildHolderObjectContent(pass, type, holder, IMAGES),
    },
  };
}

/** Both wallets' output of one pass, plain and localized, shared and a holder's copy. */
function goldenOf(
  metadata: PassMetadataDto,
  classType: ClassType,
  holderValues: Record<string, string>,
  passengerName?: PassengerName,
): Record<string, unknown> {
  const holder = holderOf(holderValues, passengerName);
  const golden: Record<string, unknown> = {};
  for (const [variant, variantMetadata] of [
    ['plain', metadata],
    ['localized', localizedOf(metadata)],
  ] as const) {
    const pass = passOf(variantMetadata);
    golden[variant] = {
      walletA: { shared: walletAFiles(pass), holder: walletAFiles(pass, holder) },
      walletB: { classType, ...walletBResources(pass, classType, holder) },
    };
  }
  return golden;
}

/** A holder of the WalletB fixtures: a seat, a row, a passenger and points. */
const WALLET_B_HOLDER_VALUES = { seat: '12C', passenger: 'Maya Rivera', row: 'F', points: '250' };

const GOLDENS: [string, () => Record<string, unknown>][] = [
  ...WALLET_A_KIND_NAMES.map((name): [string, () => Record<string, unknown>] => [
    `wallet-a-kinds.${name}`,
    () => {
      const kind: WalletAKind = WALLET_A_KINDS[name];
      return goldenOf(
        kind.metadata,
        classTypeFor(kind.metadata),
        kind.holderValues,
        kind.passengerName,
      );
    },
  ]),
  ...(['eventTicket', 'festival'] as const).map((name): [string, () => Record<string, unknown>] => [
    `wallet-a-kinds.${name}.poster`,
    () => {
      const kind = WALLET_A_KINDS[name];
      const pass = passOf(kind.metadata, ['logo.png', 'artwork.png']);
      return {
        walletA: {
          shared: walletAFiles(pass),
          holder: walletAFiles(pass, holderOf(kind.holderValues)),
        },
      };
    },
  ]),
  [
    // iOS 27: the poster generic pass beside the generic one, and featured actions.
    'wallet-a-kinds.generic.poster',
    () => {
      const kind = WALLET_A_KINDS.generic;
      const pass = passOf(
        {
          ...kind.metadata,
          auxiliaryFields: [{ key: 'desk', label: 'Desk', value: '4' }],
          featuredActions: [
            { type: 'membershipBenefits', url: 'https://brand.example/benefits' },
            { type: 'viewOffersRewards', url: 'https://brand.example/offers' },
          ],
        },
        ['logo.png', 'artwork.png'],
      );
      return {
        walletA: {
          shared: walletAFiles(pass),
          holder: walletAFiles(pass, holderOf(kind.holderValues)),
        },
      };
    },
  ],
  ...KIND_NAMES.map((name): [string, () => Record<string, unknown>] => [
    `pass-kind-fixtures.${name}`,
    () => {
      const fixture = KIND_FIXTURES[name];
      expect(classTypeFor(fixture.metadata)).toBe(fixture.classType);
      // The semantic flight's holder has a passenger of its own.
      return goldenOf(
        fixture.metadata,
        fixture.classType,
        WALLET_B_HOLDER_VALUES,
        name === 'semanticFlight' ? { givenName: 'Maya', familyName: 'Rivera' } : undefined,
      );
    },
  ]),
  [
    // A store card Published before class types existed keeps its generic class.
    'pass-kind-fixtures.storeCard.generic-class',
    () => ({
      walletB: walletBResources(
        passOf(KIND_FIXTURES.storeCard.metadata),
        'generic',
        holderOf(WALLET_B_HOLDER_VALUES),
      ),
    }),
  ],
];

/** Every WalletA pass.json of a golden (shared and holder's copy, plain and localized), by path. */
function passJsonsOf(golden: unknown, at = ''): [string, Record<string, unknown>][] {
  if (typeof golden !== 'object' || golden === null) return [];
  return Object.entries(golden).flatMap(([key, value]) =>
    key === 'pass.json'
      ? [[at, value as Record<string, unknown>]]
      : passJsonsOf(value, at === '' ? key : `${at}.${key}`),
  );
}

/**
 * A package of a golden pass.json as the service makes one: each image it shows at @1x, @2x and
 * @3x (pixel sizes do not matter to Pass Builder, which reads the names).
 */
function packageFiles(passJson: Record<string, unknown>): Record<string, Buffer> {
  const poster = Array.isArray(passJson.preferredStyleSchemes) || 'posterGeneric' in passJson;
  const roles = ['icon', 'logo', ...(poster ? ['artwork'] : [])];
  const files: Record<string, Buffer> = { 'pass.json': Buffer.from(JSON.stringify(passJson)) };
  for (const role of roles) {
    for (const scale of ['', '@2x', '@3x']) files[`${role}${scale}.png`] = makePng();
  }
  return files;
}

describe('what holders get of every kind of pass, against test/golden/pass-kinds', () => {
  if (WRITE) mkdirSync(GOLDEN_DIR, { recursive: true });

  it.each(GOLDENS)('%s is as its golden file', (name, build) => {
    const file = join(GOLDEN_DIR, `${name}.json`);
    const built = `${JSON.stringify(build(), null, 2)}\n`;
    if (WRITE) {
      writeFileSync(file, built);
      return;
    }
    expect(built).toBe(readFileSync(file, 'utf8'));
  });

  it("fails Apple's Pass Builder rules when a poster loses NFC, a flight its zone, an icon a scale", () => {
    const copy = (name: string, at: string) => {
      const found = passJsonsOf(GOLDENS.find(([golden]) => golden === name)![1]()).find(
        ([path]) => path === at,
      );
      return structuredClone(found![1]);
    };
    const rules = (files: Record<string, Buffer>) =>
      passBuilderIssues(files).map(({ severity, rule, path }) => `${severity} ${rule} ${path}`);

    const poster = copy('wallet-a-kinds.eventTicket.poster', 'walletA.holder');
    delete poster.nfc;
    expect(rules(packageFiles(poster))).toEqual(['error PASS_VALIDATION_EVENT_MISSING_NFC nfc']);

    const flight = copy('wallet-a-kinds.semanticFlight', 'plain.walletA.holder');
    delete (flight.semantics as Record<string, unknown>).departureAirportTimeZone;
    expect(rules(packageFiles(flight))).toEqual([
      'error PASS_VALIDATION_EVENT_MISSING_DEPARTURE_AIRPORT_TIMEZONE semantics.departureAirportTimeZone',
    ]);

    const card = packageFiles(copy('wallet-a-kinds.storeCard', 'plain.walletA.shared'));
    delete card['icon@2x.png'];
    delete card['icon@3x.png'];
    expect(rules(card)).toEqual([
      'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@2x.png',
      'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@3x.png',
    ]);
  });

  // Apple's own rules (test/support/pass-builder-rules.ts): 0 errors, 0 warnings.
  it.each(GOLDENS)("%s passes Apple's Pass Builder rules, every copy", (name, build) => {
    const copies = passJsonsOf(build());
    if (!name.endsWith('generic-class')) expect(copies.length).toBeGreaterThan(0);
    for (const [at, passJson] of copies) {
      expect([at, passBuilderIssues(packageFiles(passJson))]).toEqual([at, []]);
    }
  });
});
