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
    secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
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

const passJson = buildPassJson(pass, {
  passTypeIdentifier: 'pass.example.unit',
  teamIdentifier: 'TEAMUNIT01',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'a'.repeat(32),
  locations: [{ latitude: 48.85, longitude: 2.35, altitude: null, relevantText: 'Near' }],
  messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
});

describe('pkpass archive', () => {
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
      expect(JSON.parse(written.toString('utf8'))).toEqual(passJson);
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
