import { NotFoundError, stampCreated, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKey } from '../entities/api-key.entity';
import { issueApiKey } from './credentials';

@Injectable()
export class ApiKeysService {
  constructor(@InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>) {}

  /** Creates a key for the caller; the returned `key` is never available again. */
  async create(principal: Principal, name: string): Promise<{ apiKey: ApiKey; key: string }> {
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
  }
}
