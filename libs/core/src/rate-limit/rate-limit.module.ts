import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { FailureCounter } from './failure-counter';
import { FallbackRateLimitStore } from './fallback-rate-limit.store';
import {
  MemoryRateLimitStore,
  RATE_LIMIT_STORE,
  RedisRateLimitStore,
  type RateLimitStore,
} from './rate-limit.store';

/**
 * The rate-limit store's Redis connection, or null without REDIS_URL: `/health` pings Redis on
 * it rather than opening a connection of its own.
 */
export const RATE_LIMIT_REDIS = Symbol('RATE_LIMIT_REDIS');

/**
 * The counters' store (memory, or Redis shared between instances with this process's own
 * counters while Redis does not answer) and the failure counter. Services that budget work per
 * caller import it; the HTTP guards that read it are registered by the API application, so a
 * process without HTTP gets the store and no guard.
 */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMIT_REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Redis | null =>
        config.rateLimit.redisUrl === undefined
          ? null
          : new Redis(config.rateLimit.redisUrl, {
              // Fail fast: a Redis that is away fails each command at once (no offline queue),
              // a frozen one (the connection open, no answer) in 500 ms, and the store counts
              // in memory meanwhile (FallbackRateLimitStore).
              maxRetriesPerRequest: 1,
              enableOfflineQueue: false,
              connectTimeout: 2000,
              commandTimeout: 500,
            }),
    },
    {
      provide: RATE_LIMIT_STORE,
      inject: [APP_CONFIG, RATE_LIMIT_REDIS],
      useFactory: (config: AppConfig, redis: Redis | null): RateLimitStore =>
        redis === null
          ? new MemoryRateLimitStore()
          : new FallbackRateLimitStore(
              new RedisRateLimitStore(redis, config.rateLimit.redisKeyPrefix),
            ),
    },
    FailureCounter,
  ],
  exports: [RATE_LIMIT_STORE, RATE_LIMIT_REDIS, FailureCounter],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
