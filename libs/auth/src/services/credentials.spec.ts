import {
  apiKeySecretMatches,
  hashPassword,
  issueApiKey,
  parseApiKey,
  verifyPassword,
} from './credentials';

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horse', first)).toBe(true);
    expect(await verifyPassword('wrong horse', first)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$abc')).toBe(false);
  });
});

describe('API keys', () => {
  const keyId = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b';

  it('issues wpk.<id>.<secret> and stores only a SHA-256 of the secret', () => {
    const { key, secretHash } = issueApiKey(keyId);
    const parsed = parseApiKey(key);
    expect(parsed?.keyId).toBe(keyId);
    expect(secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toContain(secretHash);
    expect(apiKeySecretMatches(parsed!.secret, secretHash)).toBe(true);
    expect(apiKeySecretMatches(`${parsed!.secret.slice(0, -1)}x`, secretHash)).toBe(false);
  });

  it.each([
    '',
    'wpk',
    `wpk.${keyId}`,
    `wpk.${keyId}.short`,
    `xyz.${keyId}.${'a'.repeat(43)}`,
    `wpk.not-an-id.${'a'.repeat(43)}`,
  ])('treats %p as malformed', (key) => {
    expect(parseApiKey(key)).toBeNull();
  });
});
