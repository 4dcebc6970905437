import type { Redis } from 'ioredis';

export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

/** Counts requests per caller in fixed windows. */
export interface RateLimitStore {
  /** Counts one more in the key's window, opening a window of `windowMs` when none is open. */
  hit(key: string, windowMs: number): Promise<RateLimitHit>;
  /**
   * The key's open window without counting, or null when none is open: for limits that are
   * checked before the work and counted only when it fails (failed sign-ins, refused keys).
   */
  peek(key: string): Promise<RateLimitHit | null>;
  close(): Promise<void>;
}

/** One process's counters: right for a single instance and for tests. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private sweptAt = 0;

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const now = Date.now();
    this.sweep(now, windowMs);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return Promise.resolve({ count: window.count, resetInMs: window.endsAt - now });
  }

  peek(key: string): Promise<RateLimitHit | null> {
    const now = Date.now();
    const window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) return Promise.resolve(null);
    return Promise.resolve({ count: window.count, resetInMs: window.endsAt - now });
  }

  /** Drops ended windows at most once a window, so memory follows active callers only. */
  private sweep(now: number, windowMs: number): void {
    if (now - this.sweptAt < windowMs) return;
    this.sweptAt = now;
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  close(): Promise<void> {
    this.windows.clear();
    return Promise.resolve();
  }
}

/**
 * Counters shared by every API instance. INCR and PEXPIRE run in one MULTI so a key never
 * outlives its window, even when an instance dies between the two.
 */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const redisKey = `${this.keyPrefix}ratelimit:${key}`;
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, windowMs, 'NX')
      .pttl(redisKey)
      .exec();
    if (results === null) throw new Error('Redis transaction was aborted');
    const [[incrError, count], , [ttlError, ttl]] = results;
    if (incrError) throw incrError;
    if (ttlError) throw ttlError;
    const remaining = Number(ttl);
    return { count: Number(count), resetInMs: remaining > 0 ? remaining : windowMs };
  }

  async peek(key: string): Promise<RateLimitHit | null> {
    const redisKey = `${this.keyPrefix}ratelimit:${key}`;
    const results = await this.redis.multi().get(redisKey).pttl(redisKey).exec();
    if (results === null) throw new Error('Redis transaction was aborted');
    const [[getError, count], [ttlError, ttl]] = results;
    if (getError) throw getError;
    if (ttlError) throw ttlError;
    // A key without a TTL cannot exist (hit sets one in the same MULTI); -2 is "no key".
    if (count === null || Number(ttl) <= 0) return null;
    return { count: Number(count), resetInMs: Number(ttl) };
  }

  async close(): Promise<void> {
    // QUIT waits for Redis's answer; with Redis away it fails at once (no offline queue) and
    // the client would go on reconnecting, keeping the process alive: just drop the connection.
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
