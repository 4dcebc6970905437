import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

const SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1, keyLength: 64 };

function scryptAsync(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password,
      salt,
      params.keyLength,
      { N: params.N, r: params.r, p: params.p, maxmem: 64 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return [
    'scrypt',
    SCRYPT.N,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64'),
    key.toString('base64'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Checked against when the e-mail is unknown, so a miss takes as long as a wrong password. */
export const DUMMY_PASSWORD_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + Buffer.alloc(64).toString('base64');

const API_KEY_PREFIX = 'wpk';
const API_KEY_PATTERN =
  /^wpk\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export interface IssuedApiKey {
  /** The whole key, shown to the user once. */
  key: string;
  secretHash: string;
}

/** `wpk.<key id>.<secret>`: the id finds the record, the secret proves possession. */
export function issueApiKey(keyId: string): IssuedApiKey {
  const secret = randomBytes(32).toString('base64url');
  return { key: `${API_KEY_PREFIX}.${keyId}.${secret}`, secretHash: hashApiKeySecret(secret) };
}

export function parseApiKey(key: string): { keyId: string; secret: string } | null {
  const match = API_KEY_PATTERN.exec(key);
  return match ? { keyId: match[1], secret: match[2] } : null;
}

/** The secret has 256 random bits, so a fast hash is enough: nothing to brute-force. */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function apiKeySecretMatches(secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashApiKeySecret(secret), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
