import { readSection } from '../env-reader';
import { readWalletAConfig } from './wallet-a-config';

describe('readWalletAConfig', () => {
  it("signs with development material and pushes to Apple's APNs by default", () => {
    const { value, problems } = readSection({}, readWalletAConfig);
    expect(problems).toEqual([]);
    expect(value).toMatchObject({
      certPath: undefined,
      devCertDir: './data/wallet-a',
      apnsUrl: 'https://api.push.apple.com',
      fetchConfirmations: true,
    });
  });

  it.each([
    [
      { WALLET_A_CERT: '/cert.pem' },
      'WALLET_A_CERT, WALLET_A_KEY and WALLET_A_WWDR must be set together',
    ],
    [{ WALLET_A_APNS_KEY: '/key.p8' }, 'WALLET_A_APNS_KEY and WALLET_A_APNS_KEY_ID must be set'],
    [{ PASSKIT_DEVICES_PER_HOLDER: '0' }, 'PASSKIT_DEVICES_PER_HOLDER must be an integer'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readWalletAConfig).problems).toEqual([
      expect.stringContaining(message),
    ]);
  });
});
