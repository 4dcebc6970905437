import { Inject, Injectable, Logger } from '@nestjs/common';
import { RateLimitedError } from '../errors/domain-errors';
import { RATE_LIMIT_STORE, type RateLimitHit, type RateLimitStore } from './rate-limit.store';

/** `Retry-After` in whole seconds, at least 1, for a window that ends in `resetInMs`. */
export function retryAfterSeconds(resetInMs: number): number {
  return Math.max(1, Math.ceil(resetInMs / 1000));
}

/**
 * Limits on failures rather than on requests (refused credentials, wrong passwords): checked
 * before the work, so that a caller over the limit is refused without the credential even
 * being looked at, and counted only when the work fails. Shares the request counters' store
 * (Redis when REDIS_URL is set, this instance's own counters while Redis does not answer) and,
 * like them, lets the request through when the store itself fails: a broken counter store must
 * not stop every sign-in.
 */
@Injectable()
export class FailureCounter {
  private readonly logger = new Logger(FailureCounter.name);

  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  /** Throws 429 RATE_LIMITED when `key` already has `limit` failures in its open window. */
  async assertBelow(key: string, limit: number): Promise<void> {
    const window = await this.peek(key);
    if (window !== null && window.count >= limit) {
      throw new RateLimitedError(retryAfterSeconds(window.resetInMs));
    }
  }

  /** The key's open window, or null when there is none (or the store failed). */
  async peek(key: string): Promise<RateLimitHit | null> {
    try {
      return await this.store.peek(key);
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; failure limit not checked');
      return null;
    }
  }

  /** Counts one failure; null when the store failed. */
  async record(key: string, windowMs: number): Promise<RateLimitHit | null> {
    try {
      return await this.store.hit(key, windowMs);
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; failure not counted');
      return null;
    }
  }
}
