import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck =
  { valid: true; remainingSeconds: number } | { valid: false; reason: 'invalid' | 'expired' };

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

/**
 * Signs and checks the local driver's download URLs,
 * `<PUBLIC_BASE_URL>/files/<key>?expires=<unix seconds>&signature=<hex HMAC-SHA256>`.
 * The MAC covers the key and the expiry, so neither can be changed without the secret.
 */
export class FileUrlSigner {
  constructor(
    private readonly secret: string,
    private readonly publicBaseUrl: string,
  ) {}

  url(key: string, expiresInSeconds: number, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + Math.trunc(expiresInSeconds);
    const path = key.split('/').map(encodeURIComponent).join('/');
    return `${this.publicBaseUrl}/files/${path}?expires=${expires}&signature=${this.signature(key, expires)}`;
  }

  /** Signature first, so a changed expiry is "invalid" rather than "expired". */
  verify(key: string, expires: unknown, signature: unknown, now = Date.now()): SignatureCheck {
    if (typeof expires !== 'string' || !EXPIRES.test(expires)) {
      return { valid: false, reason: 'invalid' };
    }
    if (typeof signature !== 'string' || !SIGNATURE.test(signature)) {
      return { valid: false, reason: 'invalid' };
    }
    const expected = Buffer.from(this.signature(key, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
      return { valid: false, reason: 'invalid' };
    }
    const remainingSeconds = Number(expires) - Math.floor(now / 1000);
    if (remainingSeconds <= 0) return { valid: false, reason: 'expired' };
    return { valid: true, remainingSeconds };
  }

  private signature(key: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`files:v1\n${key}\n${expires}`).digest('hex');
  }
}
