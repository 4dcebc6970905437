import { readSection } from '../env-reader';
import { readWalletBConfig } from './wallet-b-config';

describe('readWalletBConfig', () => {
  it("talks to Google's own addresses, without a service account, by default", () => {
    expect(readSection({}, readWalletBConfig).value).toEqual({
      issuerId: '3388000000000000000',
      serviceAccountPath: undefined,
      apiUrl: 'https://walletobjects.googleapis.com',
      callbackKeysUrl: 'https://pay.google.com/gp/m/issuer/keys',
      timeoutMs: 10_000,
      callBudgetMs: 20_000,
    });
  });

  it('gives a call to Google twice the request deadline, and refuses a deadline under 100 ms', () => {
    expect(readSection({ WALLET_B_TIMEOUT_MS: '2500' }, readWalletBConfig).value).toMatchObject({
      timeoutMs: 2500,
      callBudgetMs: 5000,
    });
    expect(readSection({ WALLET_B_TIMEOUT_MS: '50' }, readWalletBConfig).problems).toEqual([
      expect.stringContaining('WALLET_B_TIMEOUT_MS must be an integer from 100'),
    ]);
  });

  it('takes other addresses (the fakes in tests), without a trailing slash', () => {
    expect(
      readSection({ WALLET_B_API_URL: 'http://127.0.0.1:4000/' }, readWalletBConfig).value.apiUrl,
    ).toBe('http://127.0.0.1:4000');
    expect(readSection({ WALLET_B_CALLBACK_KEYS_URL: 'keys' }, readWalletBConfig).problems).toEqual(
      ['WALLET_B_CALLBACK_KEYS_URL must be a URL (got "keys")'],
    );
  });
});
