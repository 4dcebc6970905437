import { FileUrlSigner } from './file-url-signer';

const SECRET = 'files-secret-that-is-at-least-32-characters';
const KEY = 'pass-assets/ws-1/0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b/logo.png';
const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);

function parse(url: string): { path: string; expires: string; signature: string } {
  const parsed = new URL(url);
  return {
    path: parsed.pathname,
    expires: parsed.searchParams.get('expires') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe('FileUrlSigner', () => {
  const signer = new FileUrlSigner(SECRET, 'https://wallet.example.com');

  it('makes <base>/files/<key>?expires=<unix seconds>&signature=<hex>', () => {
    const url = signer.url(KEY, 600, NOW);
    expect(url).toMatch(
      /^https:\/\/wallet\.example\.com\/files\/pass-assets\/ws-1\/[0-9a-f-]{36}\/logo\.png\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
    expect(parse(url).expires).toBe(String(NOW / 1000 + 600));
  });

  it('accepts its own URL until it expires, and says for how long', () => {
    const { expires, signature } = parse(signer.url(KEY, 600, NOW));
    expect(signer.verify(KEY, expires, signature, NOW)).toEqual({
      valid: true,
      remainingSeconds: 600,
    });
    expect(signer.verify(KEY, expires, signature, NOW + 599_000)).toEqual({
      valid: true,
      remainingSeconds: 1,
    });
    expect(signer.verify(KEY, expires, signature, NOW + 600_000)).toEqual({
      valid: false,
      reason: 'expired',
    });
  });

  it('gives an expired URL for a lifetime of zero or less', () => {
    for (const lifetime of [0, -1]) {
      const { expires, signature } = parse(signer.url(KEY, lifetime, NOW));
      expect(signer.verify(KEY, expires, signature, NOW)).toEqual({
        valid: false,
        reason: 'expired',
      });
    }
  });

  it('refuses a changed signature, key or expiry', () => {
    const { expires, signature } = parse(signer.url(KEY, 600, NOW));
    const flipped = `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`;
    expect(signer.verify(KEY, expires, flipped, NOW)).toEqual({ valid: false, reason: 'invalid' });
    expect(signer.verify(KEY.replace('logo', 'icon'), expires, signature, NOW)).toEqual({
      valid: false,
      reason: 'invalid',
    });
    // A later expiry is "invalid", not honoured: the expiry is part of what is signed.
    expect(signer.verify(KEY, String(Number(expires) + 3600), signature, NOW + 700_000)).toEqual({
      valid: false,
      reason: 'invalid',
    });
  });

  it('refuses a URL signed with another secret', () => {
    const other = new FileUrlSigner(`${SECRET}-other`, 'https://wallet.example.com');
    const { expires, signature } = parse(other.url(KEY, 600, NOW));
    expect(signer.verify(KEY, expires, signature, NOW)).toEqual({
      valid: false,
      reason: 'invalid',
    });
  });

  it.each([
    [undefined, undefined],
    ['123', undefined],
    [undefined, 'a'.repeat(64)],
    ['soon', 'a'.repeat(64)],
    ['-5', 'a'.repeat(64)],
    ['123', 'A'.repeat(64)],
    ['123', 'a'.repeat(63)],
    ['123', ['a'.repeat(64)]],
  ])('refuses missing or malformed parameters (expires %j, signature %j)', (expires, signature) => {
    expect(signer.verify(KEY, expires, signature, NOW)).toEqual({
      valid: false,
      reason: 'invalid',
    });
  });

  it('percent-encodes key segments but signs the key itself', () => {
    const key = 'campaign-assets/ws 1/x/a.csv';
    const { path, expires, signature } = parse(signer.url(key, 60, NOW));
    expect(path).toBe('/files/campaign-assets/ws%201/x/a.csv');
    expect(signer.verify(key, expires, signature, NOW).valid).toBe(true);
  });
});
