import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { RateLimitedError } from '../errors/domain-errors';
import type { AppRequest } from '../http/request-context';
import { retryAfterSeconds } from './failure-counter';
import { RATE_LIMIT_STORE, type RateLimitHit, type RateLimitStore } from './rate-limit.store';

const SKIP_RATE_LIMIT = 'rateLimit:skip';
const WINDOW_MS = 60_000;

/** For probes a load balancer calls every few seconds (health, metrics). */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator =>
  SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * Per-caller fixed-window limit, run after authentication so that the caller is known:
 * an API key counts on its own, a signed-in user's bearer tokens on their own, anonymous calls
 * per IP. Every authenticated request also counts against its user, across all their keys and
 * tokens, so that creating new keys does not buy a fresh budget. Both counters must pass.
 * (Refused credentials never get here: the authentication guard counts those per IP.)
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);

  constructor(
    private readonly reflector: Reflector,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (skip) return true;

    const request = context.switchToHttp().getRequest<AppRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const counters = this.countersOf(request);

    let hits: RateLimitHit[];
    try {
      hits = await Promise.all(counters.map((counter) => this.store.hit(counter.key, WINDOW_MS)));
    } catch (error) {
      // A broken counter store must not take the API down with it: let the request through.
      // (Redis not answering is not this: the store then counts per instance.)
      this.logger.warn({ err: error }, 'Rate-limit store failed; request allowed');
      return true;
    }

    // The headers describe the counter closest to its limit: that is the one that will refuse.
    const states = counters.map((counter, index) => ({
      limit: counter.limit,
      remaining: counter.limit - hits[index].count,
      resetSeconds: retryAfterSeconds(hits[index].resetInMs),
    }));
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    response.setHeader('RateLimit-Limit', String(tightest.limit));
    response.setHeader('RateLimit-Remaining', String(Math.max(0, tightest.remaining)));
    response.setHeader('RateLimit-Reset', String(tightest.resetSeconds));
    const over = states.filter((state) => state.remaining < 0);
    if (over.length > 0) {
      throw new RateLimitedError(Math.max(...over.map((state) => state.resetSeconds)));
    }
    return true;
  }

  private countersOf(request: AppRequest): { key: string; limit: number }[] {
    const { perMinute, perUserPerMinute } = this.config.rateLimit;
    const principal = request.principal;
    if (principal === undefined)
      return [{ key: `ip:${request.ip ?? 'unknown'}`, limit: perMinute }];
    const caller =
      principal.apiKeyId !== undefined ? `key:${principal.apiKeyId}` : `token:${principal.userId}`;
    return [
      { key: caller, limit: perMinute },
      { key: `user:${principal.userId}`, limit: perUserPerMinute },
    ];
  }
}
