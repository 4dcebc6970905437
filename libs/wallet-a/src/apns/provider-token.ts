import { createPrivateKey, KeyObject, sign } from 'node:crypto';

/**
 * APNs refuses tokens older than one hour (403 ExpiredProviderToken) and new tokens more often
 * than every 20 minutes (429 TooManyProviderTokenUpdates): a token is reused for 50 minutes.
 */
export const PROVIDER_TOKEN_REFRESH_MS = 50 * 60 * 1000;

export interface ProviderTokenOptions {
  keyPem: string;
  keyId: string;
  teamId: string;
  clock?: () => number;
  refreshAfterMs?: number;
}

function base64UrlJson(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * Makes the ES256 JSON web token APNs wants in `authorization: bearer <token>`: header
 * `{alg: "ES256", kid}`, claims `{iss: teamId, iat: <seconds>}`, signed with the .p8 key.
 * One token is shared by every request until it is 50 minutes old.
 */
export class ProviderTokenSigner {
  private readonly key: KeyObject;
  private readonly clock: () => number;
  private readonly refreshAfterMs: number;
  private current?: { token: string; issuedAtMs: number };

  constructor(private readonly options: ProviderTokenOptions) {
    if (options.keyId.trim() === '' || options.teamId.trim() === '') {
      throw new Error('APNs token auth needs a key id and a team id');
    }
    try {
      this.key = createPrivateKey(options.keyPem);
    } catch (error) {
      throw new Error(
        `The APNs signing key is not a readable private key: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (
      this.key.asymmetricKeyType !== 'ec' ||
      this.key.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
    ) {
      throw new Error('The APNs signing key must be an EC P-256 private key (the .p8 file)');
    }
    this.clock = options.clock ?? Date.now;
    this.refreshAfterMs = options.refreshAfterMs ?? PROVIDER_TOKEN_REFRESH_MS;
  }

  /** The token to send now: the cached one, or a new one when it is due. */
  token(): string {
    const now = this.clock();
    if (this.current === undefined || now - this.current.issuedAtMs >= this.refreshAfterMs) {
      this.current = { token: this.create(now), issuedAtMs: now };
    }
    return this.current.token;
  }

  /**
   * APNs answered ExpiredProviderToken for `rejected`: the next {@link token} call makes a new
   * one. Only a report about the current token counts, so many requests rejected at once cause
   * one refresh, not one each.
   */
  invalidate(rejected: string): void {
    if (this.current?.token === rejected) this.current = undefined;
  }

  private create(nowMs: number): string {
    const header = base64UrlJson({ alg: 'ES256', kid: this.options.keyId });
    const claims = base64UrlJson({ iss: this.options.teamId, iat: Math.floor(nowMs / 1000) });
    const signature = sign('sha256', Buffer.from(`${header}.${claims}`), {
      key: this.key,
      dsaEncoding: 'ieee-p1363',
    });
    return `${header}.${claims}.${signature.toString('base64url')}`;
  }
}
