import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { FailureCounter } from './failure-counter';
import {
  MemoryRateLimitStore,
  RATE_LIMIT_STORE,
  RedisRateLimitStore,
  type RateLimitStore,
} from './rate-limit.store';

/**
 * The counters' store (memory, or Redis shared between instances) and the failure counter.
 * Services that budget work per caller import it; the HTTP guards that read it are registered
 * by the API application, so a process without HTTP gets the store and no guard.
 */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RateLimitStore =>
        config.rateLimit.redisUrl === undefined
          ? new MemoryRateLimitStore()
          : new RedisRateLimitStore(
              new Redis(config.rateLimit.redisUrl, {
                // Fail fast: the guard lets requests through while Redis is away, or frozen:
                // a connection that stays open but answers nothing fails each hit in 500 ms.
                maxRetriesPerRequest: 1,
                enableOfflineQueue: false,
                connectTimeout: 2000,
                commandTimeout: 500,
              }),
              config.rateLimit.redisKeyPrefix,
            ),
    },
    FailureCounter,
  ],
  exports: [RATE_LIMIT_STORE, FailureCounter],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
