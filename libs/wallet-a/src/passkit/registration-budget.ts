import {
  APP_CONFIG,
  RATE_LIMIT_STORE,
  RateLimitedError,
  retryAfterSeconds,
  type AppConfig,
  type RateLimitStore,
} from '@app/core';
import { Inject, Injectable, Logger } from '@nestjs/common';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * How many device registrations a client IP (an hour) and a pass (a minute) may make. The
 * shared pass's `authenticationToken` is in its public package, so anyone can register devices
 * for it; this bounds how fast fake devices can inflate its counters or churn push tokens.
 * Counted in the rate-limit store (Redis when configured), before the database is touched, and
 * let through when the store fails, like every other limit.
 */
@Injectable()
export class RegistrationBudget {
  private readonly logger = new Logger(RegistrationBudget.name);

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts one registration; 429 RATE_LIMITED when the IP or the pass is over its budget. */
  async spend(clientIp: string, passId: string): Promise<void> {
    const { perIpPerHour, perPassPerMinute } = this.config.walletA.registrationLimits;
    for (const [key, windowMs, limit] of [
      [`passkit-register:ip:${clientIp}`, HOUR_MS, perIpPerHour],
      [`passkit-register:pass:${passId}`, MINUTE_MS, perPassPerMinute],
    ] as const) {
      let hit;
      try {
        hit = await this.store.hit(key, windowMs);
      } catch (error) {
        this.logger.warn({ err: error }, 'Rate-limit store failed; registration allowed');
        return;
      }
      if (hit.count > limit) throw new RateLimitedError(retryAfterSeconds(hit.resetInMs));
    }
  }
}
