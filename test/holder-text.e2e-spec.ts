import request from 'supertest';
import { binaryBody, openPackage } from './support/pkpass';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import { publishedPassWithDevices, startWalletAApp, type WalletAApp } from './support/walleta-env';

/** What an attacker puts into names: NUL, a terminal escape, a right-to-left override. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const HOSTILE = /[\u0000\u001b\u202e]/;

describe('Text that reaches holders', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;

  beforeAll(async () => {
    walletA = await startWalletAApp();
    ({ testApp, owner } = walletA);
  });
  afterAll(() => walletA.close());

  it('shows names without control or bidi-override characters on the page and in the package', async () => {
    const { pass } = await publishedPassWithDevices(owner, 0, {
      passName: 'Gold\u0000 card \u202Egnp.exe',
      passMetadata: {
        description: 'Card\u001b[2J',
        organizationName: 'Brand\u202E Ltd',
        secondaryFields: [{ key: 'tier', label: 'Ti\u0007er', value: 'Gold\nline two' }],
      },
    });
    // The API shows what was stored: the brand sees exactly what it sent.
    const stored = await request(testApp.server)
      .get(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .expect(200);
    expect(stored.body.passName).toBe('Gold\u0000 card \u202Egnp.exe');

    const page = await request(testApp.server).get(`/p/${pass.slug}`).expect(200);
    expect(page.text).not.toMatch(HOSTILE);
    expect(page.text).toContain('Gold card gnp.exe');
    expect(page.text).toContain('Brand Ltd');

    const download = await request(testApp.server)
      .get(`/p/${pass.slug}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const opened = openPackage(download.body as Buffer, walletA.caPem());
    expect(opened.signatureVerifies).toBe(true);
    const passJson = opened.files['pass.json'].toString('utf8');
    expect(JSON.parse(passJson)).toMatchObject({
      description: 'Card[2J',
      organizationName: 'Brand Ltd',
      storeCard: { secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold\nline two' }] },
    });
    expect(passJson).not.toMatch(/\\u0000|\\u001b|\u202e|\\u202e/i);
  });
});
