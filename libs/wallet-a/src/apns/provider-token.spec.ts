import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { PROVIDER_TOKEN_REFRESH_MS, ProviderTokenSigner } from './provider-token';

const { privateKey, publicKey } = generateKeyPairSync('ec', {
  namedCurve: 'P-256',
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

function decode(token: string): { header: unknown; claims: unknown; signatureOk: boolean } {
  const [header, claims, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')),
    signatureOk: verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: createPublicKey(publicKey), dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    ),
  };
}

describe('ProviderTokenSigner', () => {
  const start = Date.UTC(2026, 10, 22, 12, 0, 0);
  let now: number;
  const signer = (): ProviderTokenSigner =>
    new ProviderTokenSigner({
      keyPem: privateKey,
      keyId: 'ABC123DEFG',
      teamId: 'TEAM123456',
      clock: () => now,
    });

  beforeEach(() => (now = start));

  it('makes an ES256 JWT with kid, iss = team id and iat in seconds, verifiable with the public key', () => {
    const decoded = decode(signer().token());
    expect(decoded.header).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    expect(decoded.claims).toEqual({ iss: 'TEAM123456', iat: start / 1000 });
    expect(decoded.signatureOk).toBe(true);
  });

  it('signs with a 64-byte IEEE P1363 signature (r‖s), not DER', () => {
    const signature = Buffer.from(signer().token().split('.')[2], 'base64url');
    expect(signature).toHaveLength(64);
  });

  it('reuses the token for 50 minutes and makes a new one after that', () => {
    const tokens = signer();
    const first = tokens.token();

    now = start + PROVIDER_TOKEN_REFRESH_MS - 1;
    expect(tokens.token()).toBe(first);

    now = start + PROVIDER_TOKEN_REFRESH_MS;
    const second = tokens.token();
    expect(second).not.toBe(first);
    expect(decode(second).claims).toEqual({
      iss: 'TEAM123456',
      iat: (start + PROVIDER_TOKEN_REFRESH_MS) / 1000,
    });
    expect(PROVIDER_TOKEN_REFRESH_MS).toBeGreaterThan(20 * 60 * 1000);
    expect(PROVIDER_TOKEN_REFRESH_MS).toBeLessThan(60 * 60 * 1000);
  });

  it('makes a new token once after APNs rejected the current one, however many reports arrive', () => {
    const tokens = signer();
    const rejected = tokens.token();
    now += 1000;

    tokens.invalidate(rejected);
    const fresh = tokens.token();
    expect(fresh).not.toBe(rejected);

    // A late report about the old token does not throw the new one away.
    tokens.invalidate(rejected);
    expect(tokens.token()).toBe(fresh);
  });

  it('refuses a key that is not EC P-256', () => {
    const rsa = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    expect(
      () => new ProviderTokenSigner({ keyPem: rsa.privateKey, keyId: 'K', teamId: 'T' }),
    ).toThrow(/EC P-256/);
    expect(() => new ProviderTokenSigner({ keyPem: 'nope', keyId: 'K', teamId: 'T' })).toThrow(
      /not a readable private key/,
    );
    expect(() => new ProviderTokenSigner({ keyPem: privateKey, keyId: '', teamId: 'T' })).toThrow(
      /key id/,
    );
  });
});
