import { APP_CONFIG, type AppConfig, type Principal } from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import { PrincipalService } from '../services/principal.service';

export const JWT_STRATEGY = 'jwt';

export interface AccessTokenClaims {
  sub: string;
  iat?: number;
  exp?: number;
}

/**
 * Bearer tokens. Our own tokens are HS256 with JWT_SECRET; with JWT_PUBLIC_KEY, RS256/ES256
 * tokens of an identity provider are accepted too. The key is chosen by the token's
 * algorithm and only these algorithms are allowed, so `alg: none` and algorithm-confusion
 * tokens (an HS256 token "signed" with the public key) are refused. Expiry is enforced.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
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
    });
  }

  async validate(claims: AccessTokenClaims): Promise<Principal | false> {
    if (typeof claims.sub !== 'string') return false;
    return (await this.principals.forUser(claims.sub)) ?? false;
  }
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
