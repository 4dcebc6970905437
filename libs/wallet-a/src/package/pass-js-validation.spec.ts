import type { Pass } from '@app/passes';
import type { Template as PassJsTemplate } from '@walletpass/pass-js';
import { makePng } from '../../../../test/support/png';
import {
  WALLET_A_KIND_NAMES,
  WALLET_A_KINDS,
  type WalletAKindName,
} from '../../../../test/support/wallet-a-kinds';
import { generateDevelopmentMaterial } from '../signing/signing-material';
import { buildPassJson, type PassJsonContext } from './pass-json';
import { buildPassStrings } from './pass-strings';
import { passSigner, writePkpass } from './pkpass-archive';

/**
 * pass-js 7 declares Node.js 24.12 or later (its `engines`); on an older Node these checks are
 * skipped and say so, and CI runs them on its Node 24 leg (scripts/test.sh).
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
  'artwork.png': makePng({ width: 358, height: 448 }),
};

const context: PassJsonContext = {
  passTypeIdentifier: 'pass.example.unit',
  teamIdentifier: 'TEAMUNIT01',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'a'.repeat(32),
  locations: [{ latitude: 48.85, longitude: 2.35, altitude: null, relevantText: 'Near' }],
  messageField: { key: 'notification', value: 'Doors open at 18:30', changeMessage: '%@' },
};

type Copy = 'shared pass' | "holder's copy";

/** The signed package of a kind, as the service builds it: pass.json, images, manifest, signature. */
async function packageOf(
  name: WalletAKindName,
  copy: Copy,
  imageNames: string[],
): Promise<{ json: Record<string, unknown>; archive: Buffer }> {
  const kind = WALLET_A_KINDS[name];
  const pass = {
    id: 'pass-1',
    deletedTime: null,
    passMetadata: kind.metadata,
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
          },
        }
      : {}),
  });
  const files = new Map<string, Buffer>([['pass.json', Buffer.from(JSON.stringify(json))]]);
  for (const fileName of imageNames) files.set(fileName, IMAGES[fileName]);
  return { json, archive: await writePkpass(files, signer, new Date()) };
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
