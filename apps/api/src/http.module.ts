import { AuthenticationGuard, WorkspaceInterceptor } from '@app/auth';
import {
  APP_CONFIG,
  ClientIpLimitGuard,
  ContentTypeGuard,
  JsonBodyGuard,
  RATE_LIMIT_STORE,
  RateLimitGuard,
  RateLimitModule,
  type AppConfig,
  type RateLimitStore,
} from '@app/core';
import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, Reflector } from '@nestjs/core';

/**
 * The global guards and interceptor of the HTTP application, registered here and nowhere
 * else, so that a process without HTTP (the worker) imports none of them. Nest runs global
 * guards in the order they are listed, and the order is the rule:
 *
 * 1. authentication, which counts refused credentials per client IP, before anything reads
 *    the caller's budget;
 * 2. the per-caller rate limit, once the caller is known;
 * 3. the content type, so a caller without credentials still gets 401 first;
 * 4. a route's own per-client-IP budget, and
 * 5. the JSON body, read last: a refused request's body is never read.
 */
@Module({
  imports: [RateLimitModule],
  providers: [
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ContentTypeGuard },
    {
      provide: APP_GUARD,
      inject: [Reflector, RATE_LIMIT_STORE],
      useFactory: (reflector: Reflector, store: RateLimitStore) =>
        new ClientIpLimitGuard(reflector, store),
    },
    {
      provide: APP_GUARD,
      inject: [Reflector, APP_CONFIG],
      useFactory: (reflector: Reflector, config: AppConfig) => new JsonBodyGuard(reflector, config),
    },
    { provide: APP_INTERCEPTOR, useClass: WorkspaceInterceptor },
  ],
})
export class HttpModule {}
