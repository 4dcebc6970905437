import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { SigningMaterialProvider } from './signing-material';

/** Seals and opens short secrets of one purpose (its own key). */
export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

/**
 * Secrets the service must use again but never show (a pass's WalletA `authenticationToken`,
 * a webhook's signing secret) kept in the database as AES-256-GCM `iv.tag.ciphertext`
 * (base64url). Each purpose gets its own key, derived with HKDF from the pass-signing key,
 * which is stable for the life of the passes it signs and never stored in the database: a copy
 * of the database alone reveals none of them.
 */
@Injectable()
export class SecretSealer {
  /** One key per purpose: the purposes are constants in the code, so this cannot grow. */
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly signing: SigningMaterialProvider) {}

  /** The box of one purpose, e.g. `'walletA authenticationToken'`. */
  box(purpose: string): SecretBox {
    return {
      seal: (secret) => this.seal(purpose, secret),
      open: (sealed) => this.open(purpose, sealed),
    };
  }

  private key(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (key === undefined) {
      key = Buffer.from(
        hkdfSync('sha256', this.signing.get().keyPem, 'wallet-pass-service', purpose, 32),
      );
      this.keys.set(purpose, key);
    }
    return key;
  }

  private seal(purpose: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(purpose), iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
  }

  private open(purpose: string, stored: string): string {
    const [iv, tag, sealed] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.key(purpose), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  }
}
