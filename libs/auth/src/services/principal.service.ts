import { type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKey } from '../entities/api-key.entity';
import { User } from '../entities/user.entity';
import { WorkspaceMembership } from '../entities/workspace-membership.entity';
import { apiKeySecretMatches } from './credentials';

/** `last_used_time` is written at most this often per key, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Builds the {@link Principal} of a request from a token subject or an API key. */
@Injectable()
export class PrincipalService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
    @InjectRepository(WorkspaceMembership)
    private readonly memberships: Repository<WorkspaceMembership>,
  ) {}

  /** The active user's principal, or null when the user is unknown or was removed. */
  async forUser(userId: string): Promise<Principal | null> {
    const user = await this.users.findOneBy({ id: userId, removedTime: IsNull() });
    return user ? this.principalOf(user) : null;
  }

  /**
   * The principal of the key's creator. Null for an unknown, revoked or wrong key, and for a
   * key whose creator has left the organisation: such keys stop working at once.
   */
  async forApiKey(keyId: string, secret: string): Promise<Principal | null> {
    const key = await this.apiKeys.findOneBy({ id: keyId, revokedTime: IsNull() });
    if (!key || !apiKeySecretMatches(secret, key.secretHash)) return null;
    const user = await this.users.findOneBy({ id: key.userId, removedTime: IsNull() });
    if (!user) return null;

    const now = Date.now();
    if (key.lastUsedTime === null || now - key.lastUsedTime.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.apiKeys.update({ id: key.id }, { lastUsedTime: new Date(now) });
    }
    return { ...(await this.principalOf(user)), apiKeyId: key.id };
  }

  private async principalOf(user: User): Promise<Principal> {
    const memberships = await this.memberships.find({
      where: { userId: user.id },
      order: { createdTime: 'ASC', workspaceId: 'ASC' },
    });
    return {
      userId: user.id,
      organisationId: user.organisationId,
      role: user.role,
      email: user.email,
      workspaceIds: memberships.map((membership) => membership.workspaceId),
    };
  }
}
