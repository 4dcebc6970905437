import type { EnvReader } from '../env-reader';

export interface WalletBConfig {
  issuerId: string;
  serviceAccountPath?: string;
  apiUrl: string;
  callbackKeysUrl: string;
  /** The deadline of each request to Google's API or its OAuth token endpoint, answer included. */
  timeoutMs: number;
  /**
   * The most one call to Google takes, its tries and its token request included: twice the
   * request deadline, so a call that needs a new token still has a whole try left. A worker makes
   * sure its lease outlasts this before each call.
   */
  callBudgetMs: number;
}

/**
 * `WALLET_B_*`: the issuer, its service account, Google's API and callback keys, the deadline of
 * a request to Google.
 */
export function readWalletBConfig(read: EnvReader): WalletBConfig {
  const timeoutMs = read.int('WALLET_B_TIMEOUT_MS', 10_000, 100, 5 * 60 * 1000);
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
    timeoutMs,
    callBudgetMs: 2 * timeoutMs,
  };
}
