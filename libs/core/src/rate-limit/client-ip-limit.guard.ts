import { CanActivate, ExecutionContext, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { RateLimitedError } from '../errors/domain-errors';
import type { RateLimitHit, RateLimitStore } from './rate-limit.store';

const CLIENT_IP_LIMIT = 'rateLimit:perClientIp';
const WINDOW_MS = 60_000;

interface ClientIpLimit {
  name: string;
  perMinute: number;
}

/**
 * A route's (or a controller's) own per-client-IP budget, on top of the per-caller limit every
 * route has: for anonymous routes that deserve far less than the API's rate (the PassKit log),
 * or, with `@SkipRateLimit()`, far more (holder pages a crowd behind one address opens at once).
 * `name` keys its counters apart from the other routes'.
 */
export const LimitPerClientIp = (
  name: string,
  perMinute: number,
): MethodDecorator & ClassDecorator =>
  SetMetadata(CLIENT_IP_LIMIT, { name, perMinute } satisfies ClientIpLimit);

/**
 * Enforces {@link LimitPerClientIp}: fixed one-minute windows per client IP (`trust proxy` as
 * configured) in the rate-limit store, so shared through Redis like the per-caller counters
 * (counted per instance while Redis does not answer), and like them letting the request through
 * when the store itself fails. A global guard registered before the JSON body guard: a refused
 * request's body is never read.
 */
@Injectable()
export class ClientIpLimitGuard implements CanActivate {
  private readonly logger = new Logger(ClientIpLimitGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const limit = this.reflector.getAllAndOverride<ClientIpLimit | undefined>(CLIENT_IP_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (limit === undefined) return true;
    return this.check(limit, context.switchToHttp().getRequest<Request>());
  }

  private async check(limit: ClientIpLimit, request: Request): Promise<boolean> {
    let hit: RateLimitHit;
    try {
      hit = await this.store.hit(`ip-route:${limit.name}:${request.ip ?? 'unknown'}`, WINDOW_MS);
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; request allowed');
      return true;
    }
    if (hit.count > limit.perMinute) {
      throw new RateLimitedError(Math.max(1, Math.ceil(hit.resetInMs / 1000)));
    }
    return true;
  }
}
