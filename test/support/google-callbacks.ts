import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';

/**
 * Google Wallet's save/delete callbacks for tests: a root key pair standing in for Google's
 * (served by the Google Wallet fake at the callback-keys URL), an intermediate key it signs,
 * and bodies signed exactly as Google signs them (ECv2SigningOnly), plus tampered variants.
 * Written independently of the service's verifier, from Google's description, so the two
 * check each other.
 */

export const SENDER_ID = 'GooglePayPasses';
export const PROTOCOL_VERSION = 'ECv2SigningOnly';

export interface CallbackBody {
  protocolVersion: string;
  signature: string;
  intermediateSigningKey: { signedKey: string; signatures: string[] };
  signedMessage: string;
}

export interface CallbackEventInput {
  classId: string;
  objectId: string;
  eventType: 'save' | 'del';
  nonce?: string;
  /** Default: five minutes from now. */
  expTimeMillis?: number;
}

export interface CallbackVariant {
  /** The issuer id the message is signed for. */
  recipientId: string;
  /** Sign the intermediate key with this root key instead of the published one. */
  rootPrivateKey?: KeyObject;
  /** When the intermediate key expires (ms); default an hour from now. */
  intermediateExpiration?: number;
  /** Change the signed message after signing (a different event type). */
  tamperMessage?: boolean;
  senderId?: string;
}

interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

const ecKeyPair = (): KeyPair => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

/** The base64 X.509 SubjectPublicKeyInfo Google publishes keys as. */
export const spkiBase64 = (key: KeyObject): string =>
  key.export({ format: 'der', type: 'spki' }).toString('base64');

/** Each part as its UTF-8 length (4 bytes, little-endian) followed by its bytes. */
function signedString(...parts: string[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length, 0);
    chunks.push(length, bytes);
  }
  return Buffer.concat(chunks);
}

const ecdsa = (data: Buffer, key: KeyObject): string =>
  createSign('SHA256').update(data).sign({ key, dsaEncoding: 'der' }).toString('base64');

export class GoogleCallbackSigner {
  readonly root: KeyPair = ecKeyPair();
  readonly intermediate: KeyPair = ecKeyPair();

  /** What Google serves at https://pay.google.com/gp/m/issuer/keys, with our root key. */
  rootKeys(expiration = Date.now() + 7 * 24 * 3600 * 1000): {
    keys: { keyValue: string; protocolVersion: string; keyExpiration: string }[];
  } {
    return {
      keys: [
        {
          keyValue: spkiBase64(this.root.publicKey),
          protocolVersion: PROTOCOL_VERSION,
          keyExpiration: String(expiration),
        },
      ],
    };
  }

  /** A callback body as Google sends it (or a variant that must fail verification). */
  build(event: CallbackEventInput, variant: CallbackVariant): CallbackBody {
    const sender = variant.senderId ?? SENDER_ID;
    const signedKey = JSON.stringify({
      keyValue: spkiBase64(this.intermediate.publicKey),
      keyExpiration: String(variant.intermediateExpiration ?? Date.now() + 3600 * 1000),
    });
    const keySignature = ecdsa(
      signedString(sender, PROTOCOL_VERSION, signedKey),
      variant.rootPrivateKey ?? this.root.privateKey,
    );
    const message = {
      classId: event.classId,
      objectId: event.objectId,
      eventType: event.eventType,
      expTimeMillis: event.expTimeMillis ?? Date.now() + 5 * 60 * 1000,
      count: 1,
      nonce: event.nonce ?? randomUUID(),
    };
    const signedMessage = JSON.stringify(message);
    const signature = ecdsa(
      signedString(sender, variant.recipientId, PROTOCOL_VERSION, signedMessage),
      this.intermediate.privateKey,
    );
    return {
      protocolVersion: PROTOCOL_VERSION,
      signature,
      intermediateSigningKey: { signedKey, signatures: [keySignature] },
      signedMessage: variant.tamperMessage
        ? JSON.stringify({ ...message, eventType: message.eventType === 'save' ? 'del' : 'save' })
        : signedMessage,
    };
  }
}

/** Another root key, which Google never published. */
export const foreignRootKey = (): KeyObject => ecKeyPair().privateKey;
