import { APP_CONFIG, type AppConfig, type Principal } from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import { PrincipalService, type TokenIssue } from '../services/principal.service';

export const JWT_STRATEGY = 'jwt';

export interface AccessTokenClaims {
  sub: string;
  /** Our tokens only: the user's token version when the token was issued. */
  tv?: number;
  iat?: number;
  exp?: number;
  iss?: string;
  aud?: string | string[];
}

/**
 * Bearer tokens. Our own tokens are HS256 with JWT_SECRET; with JWT_PUBLIC_KEY, RS256/ES256
 * tokens of an identity provider are accepted too. The key is chosen by the token's
 * algorithm and only these algorithms are allowed, so `alg: none` and algorithm-confusion
 * tokens (an HS256 token "signed" with the public key) are refused. Expiry is enforced.
 *
 * No token outlives a credential change: ours must carry the user's current token version
 * (`tv`); an identity provider's cannot, so it must say when it was issued (`iat`), and one
 * issued before the user's last password change, removal or re-add is refused. Identity-provider
 * tokens must also expire (`exp`) and name JWT_ISSUER / JWT_AUDIENCE when those are set.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly principals: PrincipalService,
  ) {
    const { secret, publicKey } = config.jwt;
    const keyFor: SecretOrKeyProvider = (_request, rawToken, done) => {
      const algorithm = tokenAlgorithm(rawToken);
      if (algorithm === 'HS256') return done(null, secret);
      if (publicKey !== undefined && (algorithm === 'RS256' || algorithm === 'ES256')) {
        return done(null, publicKey);
      }
      return done(new Error(`Tokens signed with ${algorithm ?? 'no algorithm'} are not accepted`));
    };
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: keyFor,
      algorithms: publicKey === undefined ? ['HS256'] : ['HS256', 'RS256', 'ES256'],
      ignoreExpiration: false,
      passReqToCallback: true,
    });
  }

  async validate(request: Request, claims: AccessTokenClaims): Promise<Principal | false> {
    if (typeof claims.sub !== 'string') return false;
    // The signature was checked with the key of this algorithm, so it says whose token it is.
    const ours = tokenAlgorithm(ExtractJwt.fromAuthHeaderAsBearerToken()(request)) === 'HS256';
    const issue = ours ? ourTokenIssue(claims) : this.identityProviderTokenIssue(claims);
    if (issue === null) return false;
    return (await this.principals.forUser(claims.sub, issue)) ?? false;
  }

  private identityProviderTokenIssue(claims: AccessTokenClaims): TokenIssue | null {
    // jsonwebtoken checks `exp` only when present: a token without one would never expire.
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return null;
    const { issuer, audience } = this.config.jwt;
    if (issuer !== undefined && claims.iss !== issuer) return null;
    if (audience !== undefined) {
      const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (!audiences.includes(audience)) return null;
    }
    return { issuedAtSeconds: claims.iat };
  }
}

/** Our tokens are issued with a `tv` claim; one without (or a forged non-integer) is refused. */
function ourTokenIssue(claims: AccessTokenClaims): TokenIssue | null {
  const version = claims.tv;
  return typeof version === 'number' && Number.isSafeInteger(version)
    ? { tokenVersion: version }
    : null;
}

function tokenAlgorithm(rawToken: unknown): string | undefined {
  if (typeof rawToken !== 'string') return undefined;
  try {
    const header = JSON.parse(
      Buffer.from(rawToken.split('.')[0], 'base64url').toString('utf8'),
    ) as {
      alg?: unknown;
    };
    return typeof header.alg === 'string' ? header.alg : undefined;
  } catch {
    return undefined;
  }
}
