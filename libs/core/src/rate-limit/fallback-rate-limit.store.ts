import { Logger } from '@nestjs/common';
import { MemoryRateLimitStore, type RateLimitHit, type RateLimitStore } from './rate-limit.store';

export interface FallbackTimings {
  /** How long a call to the shared store may take before it counts as failed. */
  deadlineMs: number;
  /** How long the shared store is left alone after a failure before one call tries it again. */
  retryAfterMs: number;
}

/**
 * The shared store's deadline (the Redis client's `commandTimeout` is the same: either ends a
 * frozen call) and the back-off after a failure: a request pays the deadline at most once per
 * back-off on each instance, instead of on every store call.
 */
export const FALLBACK_TIMINGS: FallbackTimings = { deadlineMs: 500, retryAfterMs: 5000 };

/** What the store logs its switches with (Nest's Logger in the app, a fake in tests). */
export type FallbackLogger = Pick<Logger, 'warn' | 'log'>;

class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`The shared rate-limit store did not answer within ${ms} ms`);
  }
}

/**
 * The shared counters (Redis) while they answer, this process's own counters while they do not:
 * a call that fails or passes {@link FallbackTimings.deadlineMs} is counted in a
 * {@link MemoryRateLimitStore} instead, and so is every call for the next
 * {@link FallbackTimings.retryAfterMs}; after that one call at a time tries the shared store
 * again (the others stay local until it answers). The limit then holds per instance, each
 * instance allowing the whole limit, rather than not at all; and no request waits on a Redis
 * that is known not to answer. Switching each way is logged once.
 *
 * Back on the shared store, the local counters are dropped: Redis is the count again (what it
 * missed meanwhile is not added to it, so a caller may get up to one more limit's worth in the
 * window it comes back in).
 */
export class FallbackRateLimitStore implements RateLimitStore {
  private readonly local = new MemoryRateLimitStore();
  private mode: 'shared' | 'local' = 'shared';
  /** While local: when a call may try the shared store again. */
  private retryAt = 0;
  /** While local: a call is trying the shared store; the others do not pile on. */
  private probing = false;

  constructor(
    private readonly shared: RateLimitStore,
    private readonly timings: FallbackTimings = FALLBACK_TIMINGS,
    private readonly logger: FallbackLogger = new Logger('RateLimitStore'),
  ) {}

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    return this.call((store) => store.hit(key, windowMs));
  }

  peek(key: string): Promise<RateLimitHit | null> {
    return this.call((store) => store.peek(key));
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.shared.close();
  }

  private async call<T>(work: (store: RateLimitStore) => Promise<T>): Promise<T> {
    const probe = this.mode === 'local';
    if (probe) {
      if (this.probing || Date.now() < this.retryAt) return work(this.local);
      this.probing = true;
    }
    try {
      const result = await this.withDeadline(work(this.shared));
      if (probe) this.recovered();
      return result;
    } catch (error) {
      this.failed(error);
      return work(this.local);
    } finally {
      if (probe) this.probing = false;
    }
  }

  private withDeadline<T>(call: Promise<T>): Promise<T> {
    const { deadlineMs } = this.timings;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlinePassed(deadlineMs)), deadlineMs);
      timer.unref();
    });
    return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
  }

  private failed(error: unknown): void {
    this.retryAt = Date.now() + this.timings.retryAfterMs;
    if (this.mode === 'local') return;
    this.mode = 'local';
    this.logger.warn(
      { err: error },
      'Redis did not answer; rate limits count per instance until it does',
    );
  }

  private recovered(): void {
    if (this.mode === 'shared') return;
    this.mode = 'shared';
    // Closing a memory store only empties it; it counts again from nothing next time.
    void this.local.close();
    this.logger.log('Redis answers again; rate limits are shared between instances again');
  }
}
