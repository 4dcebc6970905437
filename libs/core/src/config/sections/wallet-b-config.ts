import type { EnvReader } from '../env-reader';

export interface WalletBConfig {
  issuerId: string;
  serviceAccountPath?: string;
  apiUrl: string;
  callbackKeysUrl: string;
}

/** `WALLET_B_*`: the issuer, its service account, Google's API and callback keys. */
export function readWalletBConfig(read: EnvReader): WalletBConfig {
  return {
    issuerId: read.string('WALLET_B_ISSUER_ID', '3388000000000000000'),
    serviceAccountPath: read.optional('WALLET_B_SERVICE_ACCOUNT'),
    apiUrl: read.urlOr('WALLET_B_API_URL', 'https://walletobjects.googleapis.com', [
      'http:',
      'https:',
    ]),
    callbackKeysUrl: read.urlOr(
      'WALLET_B_CALLBACK_KEYS_URL',
      'https://pay.google.com/gp/m/issuer/keys',
      ['http:', 'https:'],
    ),
  };
}
