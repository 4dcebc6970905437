import type { Pass } from '@app/passes';
import { PKPass } from 'passkit-generator';
// The end-to-end suites' package reader: unzip, and openssl to verify as a device would.
import { openPackage, sha1 } from '../../../../test/support/pkpass';
import { generateDevelopmentMaterial } from '../signing/signing-material';
import { buildPassJson } from './pass-json';
import { passSigner, writePkpass } from './pkpass-archive';

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
const asWritten = (json: Record<string, unknown>) => ({
  ...json,
  relevantDate: new Date(json.relevantDate as string).toISOString(),
  expirationDate: new Date(json.expirationDate as string).toISOString(),
});

describe('pkpass archive', () => {
  it.each(['QR', 'PDF417', 'Aztec', 'Code128'])(
    'writes pass.json with a %s barcode that an independent pass library accepts unchanged',
    (barcodeFormat) => {
      const json = passJsonOf({
        ...pass,
        passMetadata: { ...pass.passMetadata, barcodeFormat },
      } as Pass);
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const reference = new PKPass(
          { 'pass.json': Buffer.from(JSON.stringify(json)) },
          { wwdr: material.wwdrPem, signerCert: material.certPem, signerKey: material.keyPem },
        );
        const written = reference.getAsRaw()['pass.json'];
        const unexpected = warn.mock.calls.filter(([message]) => !String(message).includes('icon'));
        expect(unexpected).toEqual([]);
        expect(JSON.parse(written.toString('utf8'))).toEqual(asWritten(json));
      } finally {
        warn.mockRestore();
      }
    },
  );

  it('writes pass.json that an independent pass library accepts unchanged', () => {
    // passkit-generator validates pass.json against Apple's schema, warning about and
    // stripping whatever does not fit; what it writes back must be exactly what we wrote.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const reference = new PKPass(
        { 'pass.json': Buffer.from(JSON.stringify(passJson)) },
        { wwdr: material.wwdrPem, signerCert: material.certPem, signerKey: material.keyPem },
      );
      const written = reference.getAsRaw()['pass.json'];
      const unexpected = warn.mock.calls.filter(
        ([message]) => !String(message).includes('icon'), // no images in this package
      );
      expect(unexpected).toEqual([]);
      expect(JSON.parse(written.toString('utf8'))).toEqual(asWritten(passJson));
    } finally {
      warn.mockRestore();
    }
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
});
