import { rawQuery, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ApiKey } from '../entities/api-key.entity';
import { User } from '../entities/user.entity';
import { apiKeySecretMatches } from './credentials';
import { PrincipalChanges, type CachedCredential } from './principal-cache';

/** `last_used_time` is written at most this often per key, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** One row per workspace membership of the user (one row with a null workspace for none). */
interface PrincipalRow {
  user_id: string;
  organisation_id: string;
  role: Principal['role'];
  email: string;
  workspace_id: string | null;
}

interface UserPrincipalRow extends PrincipalRow {
  token_version: number | string;
  credentials_changed_time: unknown;
}

/**
 * What a bearer token says about when it was issued, checked against the user's row: our own
 * tokens carry the user's token version; an identity provider's carry only their `iat`.
 */
export type TokenIssue = { tokenVersion: number } | { issuedAtSeconds: number };

interface ApiKeyPrincipalRow extends PrincipalRow {
  key_id: string;
  secret_hash: string;
  last_used_time: unknown;
}

const USER_COLUMNS = 'u.id AS user_id, u.organisation_id, u.role, u.email, m.workspace_id';
const MEMBERSHIPS = 'LEFT JOIN workspace_membership m ON m.user_id = u.id';
const MEMBERSHIP_ORDER = 'ORDER BY m.created_time ASC, m.workspace_id ASC';

/**
 * Builds the {@link Principal} of a request from a token subject or an API key: one round trip
 * (key, user and memberships joined) in plain SQL, which both dialects read alike, whose rows
 * are reused for up to a second ({@link PrincipalChanges}). The secret, the token version and
 * the role are still checked on every request against those rows; every change to keys, users
 * or memberships drops them on every instance before it is answered, so a revoked key or a
 * removed member stops working at once (docs/decisions.md, "Hot paths").
 */
@Injectable()
export class PrincipalService {
  /** Raw rows carry the driver's own date form (a string on SQLite); the driver reads it. */
  private readonly lastUsedColumn: ColumnMetadata;
  private readonly credentialsChangedColumn: ColumnMetadata;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
    private readonly changes: PrincipalChanges,
  ) {
    this.lastUsedColumn = apiKeys.metadata.findColumnWithPropertyName('lastUsedTime')!;
    this.credentialsChangedColumn = dataSource
      .getMetadata(User)
      .findColumnWithPropertyName('credentialsChangedTime')!;
  }

  /**
   * The principal of a bearer token's subject, or null when the user is unknown, was removed,
   * or changed credentials after the token was issued (password change, removal, re-add).
   */
  async forUser(userId: string, issue: TokenIssue): Promise<Principal | null> {
    const user = await this.userCredential(userId);
    if (user === null || !tokenStillValid(user, issue)) return null;
    return user.principal;
  }

  private async userCredential(
    userId: string,
  ): Promise<Extract<CachedCredential, { kind: 'user' }> | null> {
    const cache = this.changes.cache;
    const key = `user:${userId}`;
    const now = Date.now();
    const cached = cache.get(key, now);
    if (cached !== undefined) return cached.kind === 'user' ? cached : null;
    const lookup = cache.begin(now);
    const rows = await rawQuery<UserPrincipalRow[]>(
      this.dataSource,
      `SELECT ${USER_COLUMNS}, u.token_version, u.credentials_changed_time ` +
        `FROM app_user u ${MEMBERSHIPS} ` +
        `WHERE u.id = ? AND u.removed_time IS NULL ${MEMBERSHIP_ORDER}`,
      [userId],
    );
    const user = rows[0];
    // Unknown and removed users are not cached: a user added next must work at once.
    if (user === undefined) return null;
    const credential: CachedCredential = {
      kind: 'user',
      principal: principalOf(rows),
      tokenVersion: Number(user.token_version),
      credentialsChanged: this.dataSource.driver.prepareHydratedValue(
        user.credentials_changed_time,
        this.credentialsChangedColumn,
      ) as Date | null,
    };
    cache.set(key, credential, lookup);
    return credential;
  }

  /**
   * The principal of the key's creator. Null for an unknown, revoked or wrong key, and for a
   * key whose creator has left the organisation: such keys stop working at once.
   */
  async forApiKey(keyId: string, secret: string): Promise<Principal | null> {
    const key = await this.apiKeyCredential(keyId);
    if (key === null || !apiKeySecretMatches(secret, key.secretHash)) return null;
    const now = Date.now();
    if (key.lastUsedMs === null || now - key.lastUsedMs > LAST_USED_RESOLUTION_MS) {
      // Marked on the cached entry too, so its other requests within the TTL do not write.
      key.lastUsedMs = now;
      await this.apiKeys.update({ id: keyId }, { lastUsedTime: new Date(now) });
    }
    return key.principal;
  }

  private async apiKeyCredential(
    keyId: string,
  ): Promise<Extract<CachedCredential, { kind: 'apiKey' }> | null> {
    const cache = this.changes.cache;
    const cacheKey = `apiKey:${keyId}`;
    const now = Date.now();
    const cached = cache.get(cacheKey, now);
    if (cached !== undefined) return cached.kind === 'apiKey' ? cached : null;
    const lookup = cache.begin(now);
    const rows = await rawQuery<ApiKeyPrincipalRow[]>(
      this.dataSource,
      `SELECT k.id AS key_id, k.secret_hash, k.last_used_time, ${USER_COLUMNS} FROM api_key k ` +
        `JOIN app_user u ON u.id = k.user_id AND u.removed_time IS NULL ${MEMBERSHIPS} ` +
        `WHERE k.id = ? AND k.revoked_time IS NULL ${MEMBERSHIP_ORDER}`,
      [keyId],
    );
    const key = rows[0];
    // Unknown and revoked keys are not cached: nothing is gained by remembering a refusal.
    if (key === undefined) return null;
    const lastUsed = this.dataSource.driver.prepareHydratedValue(
      key.last_used_time,
      this.lastUsedColumn,
    ) as Date | null;
    const credential: CachedCredential = {
      kind: 'apiKey',
      principal: { ...principalOf(rows), apiKeyId: key.key_id },
      secretHash: key.secret_hash,
      lastUsedMs: lastUsed === null ? null : lastUsed.getTime(),
    };
    cache.set(cacheKey, credential, lookup);
    return credential;
  }
}

/** Whether a token was issued after the user's last credential change. */
function tokenStillValid(
  user: Extract<CachedCredential, { kind: 'user' }>,
  issue: TokenIssue,
): boolean {
  if ('tokenVersion' in issue) return user.tokenVersion === issue.tokenVersion;
  const changed = user.credentialsChanged;
  // `iat` has whole seconds: a token of the same second as the change is refused too, so
  // that one issued just before it cannot slip through (the user signs in again).
  return changed === null || issue.issuedAtSeconds * 1000 > changed.getTime();
}

function principalOf(rows: PrincipalRow[]): Principal {
  const user = rows[0];
  return {
    userId: user.user_id,
    organisationId: user.organisation_id,
    role: user.role,
    email: user.email,
    workspaceIds: rows.flatMap((row) => (row.workspace_id === null ? [] : [row.workspace_id])),
  };
}
