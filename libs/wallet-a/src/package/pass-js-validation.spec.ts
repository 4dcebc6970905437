import { passImagesOf, passTypeOf } from '@app/kinds';
import { type Pass, type PassMetadataDto } from '@app/passes';
import type { Template as PassJsTemplate } from '@walletpass/pass-js';
import { makePng } from '../../../../test/support/png';
import {
  WALLET_A_KIND_NAMES,
  WALLET_A_KINDS,
  type WalletAKind,
  type WalletAKindName,
} from '../../../../test/support/wallet-a-kinds';
import { generateDevelopmentMaterial } from '../signing/signing-material';
import { buildPassJson, PK_BARCODE_FORMATS, type PassJsonContext } from './pass-json';
import { buildPassStrings } from './pass-strings';
import { passSigner, writePkpass } from './pkpass-archive';

/**
 * pass-js 7 declares Node.js 24.12 or later (its `engines`); on an older Node these checks are
 * skipped and say so, and CI runs them on its Node.js 24 leg (.ci/run).
 */
const PASS_JS_NODE = { major: 24, minor: 12 };
const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number);
const passJsRuns =
  nodeMajor > PASS_JS_NODE.major ||
  (nodeMajor === PASS_JS_NODE.major && nodeMinor >= PASS_JS_NODE.minor);
const describeWithPassJs = passJsRuns ? describe : describe.skip;
const skipNote = passJsRuns
  ? ''
  : ` (skipped: it needs Node.js ${PASS_JS_NODE.major}.${PASS_JS_NODE.minor}, this is ${process.version})`;

/** Loaded only where it runs, so that an older Node skips the checks instead of failing to load it. */
let Template: typeof PassJsTemplate;

const material = generateDevelopmentMaterial('pass.example.unit', 'TEAMUNIT01');
const signer = passSigner(material);

/** Images at Apple's sizes, which pass-js checks (an icon of at least 29 points, ...). */
const IMAGES: Record<string, Buffer> = {
  'icon.png': makePng({ width: 38, height: 38 }),
  'icon@2x.png': makePng({ width: 76, height: 76 }),
  'logo.png': makePng({ width: 160, height: 50 }),
  'strip.png': makePng({ width: 375, height: 123 }),
  'footer.png': makePng({ width: 286, height: 15 }),
  'thumbnail.png': makePng({ width: 90, height: 90 }),
  'background.png': makePng({ width: 180, height: 220 }),
  'artwork.png': makePng({ width: 358, height: 448 }),
  'primaryLogo.png': makePng({ width: 126, height: 30 }),
};

/** One set of brand images, every role: what a brand uploads once for every kind. */
const BRAND_SET = Object.keys(IMAGES);

const context: PassJsonContext = {
  passTypeIdentifier: 'pass.example.unit',
  teamIdentifier: 'TEAMUNIT01',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'a'.repeat(32),
  locations: [{ latitude: 48.85, longitude: 2.35, altitude: null, relevantText: 'Near' }],
  messageField: { key: 'notification', value: 'Doors open at 18:30', changeMessage: '%@' },
};

type Copy = 'shared pass' | "holder's copy";

/**
 * The signed package of a kind, as the service builds it: pass.json, the images its style shows
 * of `imageNames` (`passImagesOf`, as `PassPackageService` picks them), manifest, signature.
 */
async function packageOf(
  name: WalletAKindName,
  copy: Copy,
  imageNames: string[],
  metadata: PassMetadataDto = WALLET_A_KINDS[name].metadata,
): Promise<{ json: Record<string, unknown>; archive: Buffer; files: string[] }> {
  const kind: WalletAKind = WALLET_A_KINDS[name];
  const pass = {
    id: 'pass-1',
    deletedTime: null,
    passMetadata: metadata,
    uploadInfoList: imageNames.map((fileName) => ({ fileName, uploadKey: fileName })),
  } as unknown as Pass;
  const json = buildPassJson(pass, {
    ...context,
    ...(copy === "holder's copy"
      ? {
          holder: {
            serialNumber: 'holder-1',
            fieldValues: kind.holderValues,
            barcodeValue: 'HOLDER-1',
            barcodeText: 'Holder 1',
            voided: false,
            relevantDate: '2026-07-02T19:30:00+02:00',
            expirationDate: '2026-07-03T04:00:00+02:00',
            passengerName: kind.passengerName ?? null,
          },
        }
      : {}),
  });
  const files = new Map<string, Buffer>([['pass.json', Buffer.from(JSON.stringify(json))]]);
  const shown = passImagesOf(passTypeOf(metadata), imageNames, Boolean(metadata.nfc)).shown;
  for (const fileName of shown) files.set(fileName, IMAGES[fileName]);
  return { json, archive: await writePkpass(files, signer, new Date()), files: [...files.keys()] };
}

type Structure = Record<string, { key: string }[]> & { transitType?: string };

/** The keys of each slot of a pass.json structure; pass-js leaves empty slots out. */
function slotKeys(structure: Structure): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const slot of [
    'headerFields',
    'primaryFields',
    'secondaryFields',
    'auxiliaryFields',
    'backFields',
  ]) {
    const fields = structure[slot] ?? [];
    if (fields.length > 0) keys[slot] = fields.map((field) => field.key);
  }
  return keys;
}

describeWithPassJs(`every kind of package, read by @walletpass/pass-js${skipNote}`, () => {
  beforeAll(async () => {
    ({ Template } = await import('@walletpass/pass-js'));
  });

  const cases = WALLET_A_KIND_NAMES.flatMap((name) =>
    (['shared pass', "holder's copy"] as const).map((copy) => [name, copy] as const),
  );

  it.each(cases)('accepts the %s kind (%s)', async (name, copy) => {
    const { json, archive } = await packageOf(name, copy, ['icon.png', 'logo.png', 'strip.png']);
    const template = await Template.fromBuffer(archive);
    const pass = template.createPass();
    expect(() => pass.validate()).not.toThrow();

    // It read the pass we wrote: its style and transit type, every field in its slot, the
    // barcode and the dates.
    const style = WALLET_A_KINDS[name].style;
    expect(template.style).toBe(style);
    const read = JSON.parse(JSON.stringify(pass)) as Record<string, unknown>;
    const ours = json[style] as Structure;
    const theirs = read[style] as Structure;
    expect(slotKeys(theirs)).toEqual(slotKeys(ours));
    if (style === 'boardingPass') expect(theirs.transitType).toBe(ours.transitType);
    expect(read.barcodes).toEqual(json.barcodes);
    expect(read.serialNumber).toBe(json.serialNumber);
    expect(read.relevantDate).toBe(json.relevantDate);
    expect(read.expirationDate).toBe(json.expirationDate);
  });

  it('accepts a poster event ticket, whose artwork it does not know and leaves alone', async () => {
    const { json, archive } = await packageOf('eventTicket', "holder's copy", [
      'icon.png',
      'icon@2x.png',
      'logo.png',
      'strip.png',
      'artwork.png',
    ]);
    expect(json.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
    const template = await Template.fromBuffer(archive);
    expect(() => template.createPass().validate()).not.toThrow();
    expect(template.style).toBe('eventTicket');
  });

  it.each(cases)(
    'accepts the %s kind (%s) built from one set of brand images, holding what its style shows',
    async (name, copy) => {
      const { archive, files } = await packageOf(name, copy, BRAND_SET);
      const template = await Template.fromBuffer(archive);
      expect(() => template.createPass().validate()).not.toThrow();
      expect(template.style).toBe(WALLET_A_KINDS[name].style);
      // Apple's table 4-1: a boarding pass shows a footer, no strip; a generic pass a thumbnail;
      // an event ticket with a background its background and thumbnail; the others a strip.
      const style = WALLET_A_KINDS[name].style;
      const face = {
        storeCard: ['strip.png'],
        coupon: ['strip.png'],
        eventTicket: ['thumbnail.png', 'background.png', 'artwork.png', 'primaryLogo.png'],
        boardingPass: ['footer.png'],
        generic: ['thumbnail.png', 'artwork.png', 'primaryLogo.png'],
      }[style];
      expect(files.sort()).toEqual(
        ['pass.json', 'icon.png', 'icon@2x.png', 'logo.png', ...face].sort(),
      );
    },
  );

  it('accepts a poster generic pass with featured actions, whose keys it does not know', async () => {
    const { json, archive } = await packageOf(
      'generic',
      "holder's copy",
      ['icon.png', 'logo.png', 'artwork.png', 'primaryLogo.png'],
      {
        ...WALLET_A_KINDS.generic.metadata,
        featuredActions: [{ type: 'membershipBenefits', url: 'https://brand.example/benefits' }],
      },
    );
    expect(json.posterGeneric).toBeDefined();
    expect(json.featuredActions).toHaveLength(1);
    const template = await Template.fromBuffer(archive);
    expect(() => template.createPass().validate()).not.toThrow();
    // It reads the style older devices show.
    expect(template.style).toBe('generic');
  });

  it("accepts a holder's semantic boarding pass (iOS 26), whose scheme and tags it leaves alone", async () => {
    const { json, archive } = await packageOf('semanticFlight', "holder's copy", [
      'icon.png',
      'logo.png',
    ]);
    expect(json.preferredStyleSchemes).toEqual(['semanticBoardingPass', 'boardingPass']);
    const template = await Template.fromBuffer(archive);
    const pass = template.createPass();
    expect(() => pass.validate()).not.toThrow();
    expect(template.style).toBe('boardingPass');
    const read = JSON.parse(JSON.stringify(pass)) as Record<string, unknown>;
    // The classic fields older phones show stay beside the semantic tags.
    expect(slotKeys(read.boardingPass as Structure)).toEqual(
      slotKeys(json.boardingPass as Structure),
    );
    expect((read.boardingPass as Structure).transitType).toBe('PKTransitTypeAir');
  });

  it("reads the translations of a localized package in each language's pass.strings", async () => {
    const metadata = {
      ...WALLET_A_KINDS.eventTicket.metadata,
      localizations: {
        de: { description: 'Eintrittskarte', organizationName: 'Marke GmbH' },
        'pt-BR': { organizationName: 'Marca' },
      },
    };
    const pass = {
      id: 'pass-1',
      deletedTime: null,
      passMetadata: metadata,
      uploadInfoList: [],
    } as unknown as Pass;
    const json = buildPassJson(pass, context);
    const files = new Map<string, Buffer>([['pass.json', Buffer.from(JSON.stringify(json))]]);
    for (const fileName of ['icon.png', 'logo.png', 'strip.png'])
      files.set(fileName, IMAGES[fileName]);
    for (const [name, bytes] of buildPassStrings(json, 'eventTicket', metadata.localizations)) {
      files.set(name, bytes);
    }
    const template = await Template.fromBuffer(await writePkpass(files, signer, new Date()));
    expect(() => template.createPass().validate()).not.toThrow();
    expect(template.localization.get('de')?.get(json.description as string)).toBe('Eintrittskarte');
    expect(template.localization.get('de')?.get(json.organizationName as string)).toBe(
      'Marke GmbH',
    );
    expect([...template.localization.keys()].sort()).toEqual(['de', 'pt-BR']);
  });

  // pass-js 6.9.8 knows the formats of iOS 9 to 26 only (its BARCODES_FORMAT) and refuses a
  // package whose barcodes name another: an iOS 27 format's name is checked against Apple's
  // description by pkpass-archive.spec.ts (passkit-generator's schema). Here pass-js validates
  // the rest of such a package, and reads the fallback after the iOS 27 entry as older iPhones do.
  it.each([
    ['EAN13', '4006381333931', 'QR'],
    ['Code39', 'STAFF-0042', 'Code128'],
    ['Codabar', 'A40156B', 'Code128'],
    ['ITF', '15400141288763', 'QR'],
  ] as const)(
    'validates a package with an iOS 27 %s barcode but for that format, and reads its fallback',
    async (barcodeFormat, qrUrl, barcodeFallbackFormat) => {
      const pass = {
        id: 'pass-1',
        deletedTime: null,
        passMetadata: {
          ...WALLET_A_KINDS.storeCard.metadata,
          barcodeFormat,
          barcodeFallbackFormat,
          qrUrl,
        },
        uploadInfoList: [],
      } as unknown as Pass;
      const json = buildPassJson(pass, context);
      const [ios27, fallback, ...rest] = json.barcodes as { format: string; message: string }[];
      expect(rest).toEqual([]);
      expect(ios27).toMatchObject({ format: PK_BARCODE_FORMATS[barcodeFormat], message: qrUrl });
      expect(fallback).toMatchObject({
        format: PK_BARCODE_FORMATS[barcodeFallbackFormat],
        message: qrUrl,
      });
      const archiveOf = async (passJson: Record<string, unknown>) => {
        const files = new Map<string, Buffer>([
          ['pass.json', Buffer.from(JSON.stringify(passJson))],
        ]);
        for (const name of ['icon.png', 'logo.png', 'strip.png']) files.set(name, IMAGES[name]);
        return writePkpass(files, signer, new Date());
      };
      await expect(Template.fromBuffer(await archiveOf(json))).rejects.toThrow(
        `Barcode format value ${ios27.format} is invalid`,
      );
      const template = await Template.fromBuffer(
        await archiveOf({ ...json, barcodes: [fallback] }),
      );
      const read = template.createPass();
      expect(() => read.validate()).not.toThrow();
      expect(read.barcodes).toEqual([fallback]);
    },
  );

  it('refuses a package without the images Apple requires, so its acceptance means something', async () => {
    const { archive } = await packageOf('coupon', 'shared pass', ['icon.png']);
    const template = await Template.fromBuffer(archive);
    expect(() => template.createPass().validate()).toThrow('Missing required image logo.png');
    const tinyIcon = new Map([
      ['pass.json', Buffer.from('{"coupon":{}}')],
      ['icon.png', makePng()],
    ]);
    await expect(
      Template.fromBuffer(await writePkpass(tinyIcon, signer, new Date())),
    ).rejects.toThrow(/icon image must have width 29px/);
  });
});
