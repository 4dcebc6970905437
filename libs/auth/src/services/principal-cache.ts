import { APP_CONFIG, BoundedMap, type AppConfig, type Principal } from '@app/core';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

/**
 * How long a looked-up key or user is reused. It bounds how long another instance can go on
 * accepting a revoked credential when it cannot be told (no REDIS_URL); with Redis, a change is
 * not answered before every instance has dropped its entries, or this long has passed.
 */
export const PRINCIPAL_CACHE_TTL_MS = 1000;

/** Entries kept at most: callers active within one TTL, far more than a server serves. */
const MAX_ENTRIES = 10_000;

/** A Redis failure is logged at most this often. */
const WARN_EVERY_MS = 60_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Looked-up credentials (an API key's row, a user's row and memberships) for
 * {@link PRINCIPAL_CACHE_TTL_MS}, dropped whole on any change to users, keys or memberships.
 * Whole, not per key: changes are rare (a revoke, a password, a member, a workspace) and a
 * change to one user's memberships shows in every key of theirs, so finding the entries a change
 * touches is not worth its mistakes.
 *
 * A lookup that started before a drop must not store what it read before the change: each
 * lookup takes the generation first ({@link begin}) and {@link set} ignores a stale one.
 */
export class PrincipalCache<T> {
  private readonly entries = new BoundedMap<string, Entry<T>>(MAX_ENTRIES);
  private generation = 0;
  /** False while changes cannot reach this instance (its Redis subscription is down). */
  private enabled = true;

  constructor(private readonly ttlMs = PRINCIPAL_CACHE_TTL_MS) {}

  get(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** The generation a lookup starts in, and when: its entry expires a TTL after the read. */
  begin(now: number): { generation: number; startedAt: number } {
    return { generation: this.generation, startedAt: now };
  }

  set(key: string, value: T, lookup: { generation: number; startedAt: number }): void {
    if (!this.enabled || lookup.generation !== this.generation) return;
    this.entries.set(key, { value, expiresAt: lookup.startedAt + this.ttlMs });
  }

  drop(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Stops caching (and drops everything) while this instance would miss a change. */
  setEnabled(enabled: boolean): void {
    if (!enabled) this.drop();
    this.enabled = enabled;
  }
}

/** What a request's credentials are checked against, as read from the database. */
export type CachedCredential =
  | {
      kind: 'apiKey';
      principal: Principal;
      secretHash: string;
      /** When the key's `last_used_time` was last written (ms), or null if never. */
      lastUsedMs: number | null;
    }
  | {
      kind: 'user';
      principal: Principal;
      tokenVersion: number;
      credentialsChanged: Date | null;
    };

type InvalidationMessage =
  | { kind: 'drop'; from: string; id: string }
  | { kind: 'ack'; from: string; to: string; id: string };

function parseMessage(text: string): InvalidationMessage | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { kind, from, to, id } = parsed as Record<string, unknown>;
    if (typeof from !== 'string' || typeof id !== 'string') return null;
    if (kind === 'drop') return { kind, from, id };
    if (kind === 'ack' && typeof to === 'string') return { kind, from, to, id };
    return null;
  } catch {
    return null;
  }
}

/**
 * Tells every instance that users, API keys or memberships changed, so that their principal
 * caches drop what they hold. Called after the change is committed and before it is answered:
 *
 * - in this instance the cache is dropped at once;
 * - with REDIS_URL the change is published on `${REDIS_KEY_PREFIX}principal-changes`, and the
 *   call returns once every other subscribed instance has acknowledged dropping its entries;
 *   if Redis fails, or an acknowledgement does not come, it returns only after a whole TTL,
 *   by when every entry read before the change has expired anyway. An instance whose
 *   subscription is down does not cache at all until it is subscribed again.
 * - without REDIS_URL nothing can reach other instances: an instance that shares the database
 *   may accept a revoked credential for up to {@link PRINCIPAL_CACHE_TTL_MS}
 *   (docs/decisions.md, "Hot paths").
 *
 * The connections follow the worker kicks' (worker-kicks.ts): a publisher that fails fast, a
 * subscriber of its own that ioredis reconnects and resubscribes.
 */
@Injectable()
export class PrincipalChanges implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly cache = new PrincipalCache<CachedCredential>();
  private readonly logger = new Logger('PrincipalChanges');
  private readonly instance = randomUUID();
  private readonly channel: string;
  private publisher?: Redis;
  private subscriber?: Redis;
  private readonly waiting = new Map<
    string,
    { expected?: number; received: number; done: () => void }
  >();
  private closed = false;
  private warnedAt = Number.NEGATIVE_INFINITY;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.channel = `${config.rateLimit.redisKeyPrefix}principal-changes`;
  }

  onApplicationBootstrap(): void {
    const url = this.config.rateLimit.redisUrl;
    if (url === undefined) return;
    // Until subscribed, this instance would not hear of a change made elsewhere.
    this.cache.setEnabled(false);
    this.publisher = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      // A frozen Redis (open connection, no answer) fails a publish in 1 s, not never.
      commandTimeout: 1000,
    });
    this.publisher.on('error', (error: unknown) => this.warn(error));
    // Subscribed by hand on every (re)connection, so that caching resumes only once Redis has
    // confirmed the subscription, not when the connection merely opens.
    const subscriber = new Redis(url, {
      maxRetriesPerRequest: null,
      connectTimeout: 2000,
      autoResubscribe: false,
    });
    this.subscriber = subscriber;
    subscriber.on('error', (error: unknown) => this.warn(error));
    // A lost connection may have lost a change: stop caching until subscribed again.
    subscriber.on('close', () => this.cache.setEnabled(false));
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.onMessage(text);
    });
    subscriber.on('ready', () => {
      subscriber
        .subscribe(this.channel)
        .then(() => {
          if (!this.closed && subscriber.status === 'ready') this.cache.setEnabled(true);
        })
        .catch((error: unknown) => this.warn(error));
    });
  }

  /** Drops every instance's cached principals; resolves once none can serve a stale one. */
  async changed(): Promise<void> {
    this.cache.drop();
    const publisher = this.publisher;
    if (publisher === undefined || this.closed) return;
    const id = randomUUID();
    const acknowledged = new Promise<void>((resolve) => {
      this.waiting.set(id, { received: 0, done: resolve });
    });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PRINCIPAL_CACHE_TTL_MS);
    });
    try {
      const message = JSON.stringify({ kind: 'drop', from: this.instance, id });
      // Every subscribed connection that received it must answer, our own included (it answers
      // by receiving it): counting ourselves out could miss a subscription still being made.
      this.acknowledge(id, await publisher.publish(this.channel, message));
    } catch (error) {
      this.warn(error);
    }
    await Promise.race([acknowledged, expired]);
    clearTimeout(timer);
    this.waiting.delete(id);
  }

  onApplicationShutdown(): void {
    this.closed = true;
    this.cache.setEnabled(false);
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }

  private onMessage(text: string): void {
    const message = parseMessage(text);
    if (message === null) return;
    if (message.from === this.instance) {
      if (message.kind === 'drop') this.acknowledge(message.id);
      return;
    }
    if (message.kind === 'drop') {
      this.cache.drop();
      const ack = JSON.stringify({
        kind: 'ack',
        from: this.instance,
        to: message.from,
        id: message.id,
      });
      this.publisher?.publish(this.channel, ack).catch((error: unknown) => this.warn(error));
    } else if (message.to === this.instance) {
      this.acknowledge(message.id);
    }
  }

  /**
   * Counts an acknowledgement in (`expected` undefined) or sets how many to wait for, known only
   * once PUBLISH answers: an acknowledgement may arrive before that.
   */
  private acknowledge(id: string, expected?: number): void {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return;
    if (expected === undefined) waiting.received += 1;
    else waiting.expected = expected;
    if (waiting.expected !== undefined && waiting.received >= waiting.expected) waiting.done();
  }

  private warn(error: unknown): void {
    if (this.closed) return;
    const now = Date.now();
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.logger.warn(
      { err: error },
      'Principal changes through Redis failed; changes wait out the cache instead',
    );
  }
}
