import { ForbiddenError, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { parseApiKey } from '../services/credentials';
import { PrincipalService } from '../services/principal.service';

export const API_KEY_STRATEGY = 'api-key';
export const API_KEY_HEADER = 'api-key';

/** The `api-key` header. Any key that does not authenticate is a 403, as the spec says. */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_STRATEGY) {
  constructor(private readonly principals: PrincipalService) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(apiKey: string): Promise<Principal> {
    const parsed = parseApiKey(apiKey.trim());
    if (parsed === null) throw new ForbiddenError('Malformed API key');
    const principal = await this.principals.forApiKey(parsed.keyId, parsed.secret);
    if (principal === null) throw new ForbiddenError('Invalid or revoked API key');
    return principal;
  }
}
