import { randomBytes } from 'node:crypto';
import type { EnvReader } from '../env-reader';

export interface JwtConfig {
  /** HS256 secret used to sign and verify the tokens issued by `POST /v1/auth/login`. */
  secret: string;
  /** True when no JWT_SECRET was configured and a random one was made for this process. */
  secretGenerated: boolean;
  /** PEM public key of an identity provider whose RS256/ES256 tokens are also accepted. */
  publicKey?: string;
  /** Required `iss` of identity-provider tokens (JWT_PUBLIC_KEY), when set. */
  issuer?: string;
  /** Required `aud` of identity-provider tokens (JWT_PUBLIC_KEY), when set. */
  audience?: string;
  expiresInSeconds: number;
}

export interface AuthConfig {
  jwt: JwtConfig;
  bootstrapAdmin: { email?: string; password?: string };
}

/** `JWT_*` (our tokens, an identity provider's) and `BOOTSTRAP_ADMIN_*`. */
export function readAuthConfig(read: EnvReader): AuthConfig {
  const configuredSecret = read.optional('JWT_SECRET');
  if (configuredSecret !== undefined && configuredSecret.length < 32) {
    read.problems.push('JWT_SECRET must be at least 32 characters long');
  }
  const publicKey = read.optional('JWT_PUBLIC_KEY');
  if (publicKey !== undefined && !publicKey.includes('BEGIN PUBLIC KEY')) {
    read.problems.push('JWT_PUBLIC_KEY must be a PEM public key ("-----BEGIN PUBLIC KEY-----")');
  }
  const issuer = read.optional('JWT_ISSUER');
  const audience = read.optional('JWT_AUDIENCE');
  if (publicKey === undefined && (issuer !== undefined || audience !== undefined)) {
    // Our own HS256 tokens carry neither; these describe the identity provider's tokens.
    read.problems.push(
      'JWT_ISSUER and JWT_AUDIENCE apply to JWT_PUBLIC_KEY tokens: set JWT_PUBLIC_KEY',
    );
  }

  const email = read.optional('BOOTSTRAP_ADMIN_EMAIL');
  const password = read.optional('BOOTSTRAP_ADMIN_PASSWORD');
  if ((email === undefined) !== (password === undefined)) {
    read.problems.push('BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together');
  }
  if (password !== undefined && password.length < 8) {
    read.problems.push('BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters long');
  }

  return {
    jwt: {
      secret: configuredSecret ?? randomBytes(48).toString('base64url'),
      secretGenerated: configuredSecret === undefined,
      publicKey: publicKey?.replace(/\\n/g, '\n'),
      issuer,
      audience,
      expiresInSeconds: read.int('JWT_EXPIRES_IN_SECONDS', 3600, 60, 7 * 24 * 3600),
    },
    bootstrapAdmin: { email, password },
  };
}
