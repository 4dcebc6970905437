import { ConflictError, NotFoundError, stampCreated, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKey } from '../entities/api-key.entity';
import { issueApiKey } from './credentials';
import { PrincipalChanges } from './principal-cache';

/**
 * Working (unrevoked) keys a user may hold at once. Enough for one key per integration and
 * environment; beyond that keys are usually forgotten, not used. The per-user rate limit, not
 * this cap, is what stops new keys from buying a fresh request budget.
 */
export const MAX_API_KEYS_PER_USER = 20;

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
    private readonly changes: PrincipalChanges,
  ) {}

  /**
   * Creates a key for the caller; the returned `key` is never available again. 409 once the
   * caller holds {@link MAX_API_KEYS_PER_USER} working keys. (Two creations racing past the
   * count can end one or two over; the cap is hygiene, not a security boundary.)
   */
  async create(principal: Principal, name: string): Promise<{ apiKey: ApiKey; key: string }> {
    const working = await this.apiKeys.countBy({ userId: principal.userId, revokedTime: IsNull() });
    if (working >= MAX_API_KEYS_PER_USER) {
      throw new ConflictError(
        `A user can hold at most ${MAX_API_KEYS_PER_USER} API keys; revoke one first`,
        { limit: MAX_API_KEYS_PER_USER },
      );
    }
    const apiKey = stampCreated(
      this.apiKeys.create({
        organisationId: principal.organisationId,
        userId: principal.userId,
        name,
        lastUsedTime: null,
        revokedTime: null,
      }),
      principal.userId,
    );
    const issued = issueApiKey(apiKey.id);
    apiKey.secretHash = issued.secretHash;
    await this.apiKeys.insert(apiKey);
    return { apiKey, key: issued.key };
  }

  /** The caller's own working keys, newest first. */
  list(principal: Principal): Promise<ApiKey[]> {
    return this.apiKeys.find({
      where: { userId: principal.userId, revokedTime: IsNull() },
      order: { id: 'DESC' },
    });
  }

  /** Revokes one of the caller's keys; it stops working at once. */
  async revoke(principal: Principal, keyId: string): Promise<void> {
    const result = await this.apiKeys.update(
      { id: keyId, userId: principal.userId, revokedTime: IsNull() },
      { revokedTime: new Date(), updatedTime: new Date(), updatedBy: principal.userId },
    );
    if (!result.affected) throw new NotFoundError('API key', keyId);
    await this.changes.changed();
  }
}
