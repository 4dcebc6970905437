import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';

/**
 * Verification of Google Wallet's save/delete callbacks, which Google signs with its
 * `ECv2SigningOnly` protocol (the payment-method-token format of Google Pay, without
 * encryption), exactly as Tink's PaymentMethodTokenRecipient does it:
 *
 * 1. the body has exactly `protocolVersion`, `signature`, `intermediateSigningKey` and
 *    `signedMessage`, and the version is ECv2SigningOnly;
 * 2. one of `intermediateSigningKey.signatures` verifies (ECDSA P-256, SHA-256, DER) with one of
 *    Google's root keys of that protocol version that has not expired, over
 *    `len(sender) || sender || len(protocol) || protocol || len(signedKey) || signedKey`;
 * 3. the intermediate key (`signedKey.keyValue`) has not expired (`keyExpiration`);
 * 4. `signature` verifies with the intermediate key over `len(sender) || sender ||
 *    len(recipient) || recipient || len(protocol) || protocol || len(msg) || msg`;
 * 5. the message has not expired (`expTimeMillis`).
 *
 * `len(x)` is the UTF-8 byte length of x as 4 bytes, little-endian. The sender is
 * `GooglePayPasses`, the recipient the issuer id.
 */

export const CALLBACK_PROTOCOL = 'ECv2SigningOnly';
export const CALLBACK_SENDER_ID = 'GooglePayPasses';

/** One entry of Google's root-key list (`{"keys": [...]}` at WALLET_B_CALLBACK_KEYS_URL). */
export interface RootSigningKey {
  keyValue: string;
  protocolVersion: string;
  keyExpiration?: string;
}

export interface CallbackEvent {
  classId: string;
  objectId: string;
  eventType: 'save' | 'del';
  expTimeMillis: number;
  nonce: string;
}

/**
 * A callback that does not verify. `rootKey` is true when no current root key vouches for the
 * intermediate key: fetching Google's keys again may help (they rotate).
 */
export class CallbackVerificationError extends Error {
  constructor(
    message: string,
    readonly rootKey = false,
  ) {
    super(message);
    this.name = 'CallbackVerificationError';
  }
}

const fail = (message: string, rootKey = false): never => {
  throw new CallbackVerificationError(message, rootKey);
};

/** Google's signed-string construction: each part prefixed by its length (4 bytes, LE). */
export function lengthPrefixed(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.flatMap((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function exactKeys(value: Record<string, unknown>, keys: string[], what: string): void {
  const actual = Object.keys(value);
  if (actual.length !== keys.length || !keys.every((key) => actual.includes(key))) {
    fail(`${what} must contain exactly ${keys.join(', ')}`);
  }
}

function string(value: unknown, what: string): string {
  return typeof value === 'string' ? value : fail(`${what} is not a string`);
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(`${what} is not JSON`);
  }
  return object(value, what);
}

/** Milliseconds from a number or a string of digits (Google writes both). */
function millis(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) return Number(value);
  return fail(`${what} is not a time in milliseconds`);
}

/** A base64 X.509 SubjectPublicKeyInfo of an EC P-256 key. */
export function ecPublicKey(base64: string): KeyObject | null {
  try {
    const key = createPublicKey({
      key: Buffer.from(base64, 'base64'),
      format: 'der',
      type: 'spki',
    });
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return key.asymmetricKeyType === 'ec' && curve === 'prime256v1' ? key : null;
  } catch {
    return null;
  }
}

function verifies(key: KeyObject, signatureBase64: string, data: Buffer): boolean {
  try {
    return createVerify('SHA256')
      .update(data)
      .verify({ key, dsaEncoding: 'der' }, Buffer.from(signatureBase64, 'base64'));
  } catch {
    return false;
  }
}

/** Root keys usable now: of the protocol version, with a future `keyExpiration`. */
export function usableRootKeys(keys: RootSigningKey[], now: number): KeyObject[] {
  return keys.flatMap((key) => {
    if (key.protocolVersion !== CALLBACK_PROTOCOL || key.keyExpiration === undefined) return [];
    if (!/^\d{1,16}$/.test(key.keyExpiration) || Number(key.keyExpiration) <= now) return [];
    const publicKey = ecPublicKey(key.keyValue);
    return publicKey === null ? [] : [publicKey];
  });
}

/** The parts of an ECv2SigningOnly message, read before any key is needed. */
export interface CallbackEnvelope {
  protocolVersion: string;
  signature: string;
  signedMessage: string;
  signedKey: string;
  signatures: string[];
}

/**
 * The message's structure, checked without keys: a body that is not even shaped like a
 * callback is refused before Google's keys are fetched for it.
 */
export function callbackEnvelope(body: unknown): CallbackEnvelope {
  const message = object(body, 'the callback');
  exactKeys(
    message,
    ['protocolVersion', 'signature', 'intermediateSigningKey', 'signedMessage'],
    'the callback',
  );
  const protocolVersion = string(message.protocolVersion, 'protocolVersion');
  if (protocolVersion !== CALLBACK_PROTOCOL) {
    fail(`protocolVersion is ${protocolVersion}, not ${CALLBACK_PROTOCOL}`);
  }
  const signature = string(message.signature, 'signature');
  const signedMessage = string(message.signedMessage, 'signedMessage');

  const intermediate = object(message.intermediateSigningKey, 'intermediateSigningKey');
  exactKeys(intermediate, ['signedKey', 'signatures'], 'intermediateSigningKey');
  const signedKey = string(intermediate.signedKey, 'intermediateSigningKey.signedKey');
  const signatures = Array.isArray(intermediate.signatures)
    ? intermediate.signatures.map((item, i) =>
        string(item, `intermediateSigningKey.signatures[${i}]`),
      )
    : fail('intermediateSigningKey.signatures is not an array');
  return { protocolVersion, signature, signedMessage, signedKey, signatures };
}

/** Verifies a callback body as Google specifies and returns its event; throws otherwise. */
export function verifyCallback(
  body: unknown,
  options: { rootKeys: RootSigningKey[]; recipientId: string; now: number },
): CallbackEvent {
  const { protocolVersion, signature, signedMessage, signedKey, signatures } =
    callbackEnvelope(body);

  const roots = usableRootKeys(options.rootKeys, options.now);
  if (roots.length === 0) fail('no current root signing key for ECv2SigningOnly', true);
  const signedKeyBytes = lengthPrefixed(CALLBACK_SENDER_ID, protocolVersion, signedKey);
  const vouched = roots.some((root) =>
    signatures.some((candidate) => verifies(root, candidate, signedKeyBytes)),
  );
  if (!vouched) fail('the intermediate signing key is not signed by a current root key', true);

  const keyFields = parseJsonObject(signedKey, 'intermediateSigningKey.signedKey');
  const keyValue = string(keyFields.keyValue, 'signedKey.keyValue');
  const keyExpiration = millis(keyFields.keyExpiration, 'signedKey.keyExpiration');
  if (keyExpiration <= options.now) fail('the intermediate signing key has expired');
  const intermediateKey =
    ecPublicKey(keyValue) ?? fail('signedKey.keyValue is not an EC P-256 key');

  const messageBytes = lengthPrefixed(
    CALLBACK_SENDER_ID,
    options.recipientId,
    protocolVersion,
    signedMessage,
  );
  if (!verifies(intermediateKey, signature, messageBytes)) {
    fail('the message signature does not verify (for this recipient)');
  }

  const event = parseJsonObject(signedMessage, 'signedMessage');
  const eventType = string(event.eventType, 'eventType');
  if (eventType !== 'save' && eventType !== 'del')
    fail(`eventType ${eventType} is not save or del`);
  const expTimeMillis = millis(event.expTimeMillis, 'expTimeMillis');
  if (expTimeMillis <= options.now) fail('the message has expired');
  const nonce = string(event.nonce, 'nonce');
  if (nonce === '' || nonce.length > 255) fail('nonce must be 1 to 255 characters');
  const objectId = string(event.objectId, 'objectId');
  if (objectId === '' || objectId.length > 255) fail('objectId must be 1 to 255 characters');
  return {
    classId: string(event.classId, 'classId'),
    objectId,
    eventType: eventType as 'save' | 'del',
    expTimeMillis,
    nonce,
  };
}
