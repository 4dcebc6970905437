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
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';

const SKIP_RATE_LIMIT = 'rateLimit:skip';
const WINDOW_MS = 60_000;

/** For probes a load balancer calls every few seconds (health, metrics). */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator =>
  SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * Per-caller fixed-window limit, run after authentication so that the caller is known:
 * an API key counts on its own, a signed-in user on their own, anonymous calls per IP.
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
    const limit = this.config.rateLimit.perMinute;
    const key = callerKey(request);

    let hit;
    try {
      hit = await this.store.hit(key, WINDOW_MS);
    } catch (error) {
      // A broken counter store must not take the API down with it: let the request through.
      this.logger.warn({ err: error }, 'Rate-limit store failed; request allowed');
      return true;
    }

    const resetSeconds = Math.max(1, Math.ceil(hit.resetInMs / 1000));
    response.setHeader('RateLimit-Limit', String(limit));
    response.setHeader('RateLimit-Remaining', String(Math.max(0, limit - hit.count)));
    response.setHeader('RateLimit-Reset', String(resetSeconds));
    if (hit.count > limit) throw new RateLimitedError(resetSeconds);
    return true;
  }
}

function callerKey(request: AppRequest): string {
  const principal = request.principal;
  if (principal?.apiKeyId !== undefined) return `key:${principal.apiKeyId}`;
  if (principal !== undefined) return `user:${principal.userId}`;
  return `ip:${request.ip ?? 'unknown'}`;
}
