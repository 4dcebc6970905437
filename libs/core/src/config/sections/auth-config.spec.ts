import { readSection } from '../env-reader';
import { readAuthConfig } from './auth-config';

const PUBLIC_KEY = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';

describe('readAuthConfig', () => {
  it('makes a random secret for this process when JWT_SECRET is unset', () => {
    const { value } = readSection({}, readAuthConfig);
    expect(value.jwt.secretGenerated).toBe(true);
    expect(value.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(readSection({}, readAuthConfig).value.jwt.secret).not.toBe(value.jwt.secret);
  });

  it('reads JWT_ISSUER and JWT_AUDIENCE only with JWT_PUBLIC_KEY', () => {
    expect(
      readSection(
        { JWT_PUBLIC_KEY: PUBLIC_KEY, JWT_ISSUER: 'https://idp', JWT_AUDIENCE: 'wps' },
        readAuthConfig,
      ).value.jwt,
    ).toMatchObject({ issuer: 'https://idp', audience: 'wps' });
    expect(readSection({ JWT_ISSUER: 'https://idp' }, readAuthConfig).problems).toEqual([
      expect.stringMatching(/JWT_PUBLIC_KEY/),
    ]);
  });

  it.each([
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters long'],
    [{ JWT_PUBLIC_KEY: 'abc' }, 'JWT_PUBLIC_KEY must be a PEM public key'],
    [
      { BOOTSTRAP_ADMIN_EMAIL: 'a@b.c' },
      'BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together',
    ],
    [
      { BOOTSTRAP_ADMIN_EMAIL: 'a@b.c', BOOTSTRAP_ADMIN_PASSWORD: 'short' },
      'BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters long',
    ],
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readAuthConfig).problems).toEqual([expect.stringContaining(message)]);
  });
});
