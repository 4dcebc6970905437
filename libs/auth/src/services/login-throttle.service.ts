import {
  APP_CONFIG,
  FailureCounter,
  RateLimitedError,
  retryAfterSeconds,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';

/** How long an IP stays "recent" for an account after a successful sign-in from it. */
const RECENT_IP_MS = 30 * 24 * 3600 * 1000;

/**
 * Password guessing, throttled per client IP and per account (docs/decisions.md, Rate
 * limiting). Both are checked before the password is, so a refused guess is never evaluated:
 *
 * - per client IP: at most LOGIN_FAILURES_PER_IP failures in LOGIN_FAILURE_WINDOW_SECONDS,
 *   whatever the e-mail addresses, then 429 until the window ends;
 * - per e-mail address: after LOGIN_FAILURES_PER_EMAIL failures in the window, each further
 *   failure locks the address for 1, 2, 4, ... seconds, at most LOGIN_BACKOFF_MAX_SECONDS.
 *   The lock does not apply to an IP the account signed in from in the last 30 days, so a
 *   stranger elsewhere cannot keep the owner out; from a new IP the owner waits at most one
 *   lock after the stranger stops.
 *
 * Counters live in the rate-limit store, so with REDIS_URL every instance shares them. Unknown
 * and known e-mail addresses are counted alike, so the answers reveal nothing about accounts.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    private readonly failures: FailureCounter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Throws 429 RATE_LIMITED when this attempt may not even be checked. */
  async assertAllowed(email: string, clientIp: string): Promise<void> {
    const limits = this.config.rateLimit.login;
    await this.failures.assertBelow(ipKey(clientIp), limits.failuresPerIp);
    const account = accountId(email);
    const lock = await this.failures.peek(lockKey(account));
    if (lock === null) return;
    if ((await this.failures.peek(recentIpKey(account, clientIp))) !== null) return;
    throw new RateLimitedError(retryAfterSeconds(lock.resetInMs));
  }

  async recordFailure(email: string, clientIp: string): Promise<void> {
    const limits = this.config.rateLimit.login;
    const windowMs = limits.windowSeconds * 1000;
    const account = accountId(email);
    const [, failures] = await Promise.all([
      this.failures.record(ipKey(clientIp), windowMs),
      this.failures.record(emailKey(account), windowMs),
    ]);
    if (failures === null || failures.count < limits.failuresPerEmail) return;
    const exponent = Math.min(failures.count - limits.failuresPerEmail, 30);
    const lockMs = Math.min(2 ** exponent * 1000, limits.backoffMaxSeconds * 1000);
    // The lock is a window of its own: it opens here and ends by itself (an open one stays).
    await this.failures.record(lockKey(account), lockMs);
  }

  /** Remembers the client IP as one of the account's recent ones. */
  async recordSuccess(email: string, clientIp: string): Promise<void> {
    await this.failures.record(recentIpKey(accountId(email), clientIp), RECENT_IP_MS);
  }
}

/** E-mail addresses are up to 320 characters and personal: counters are keyed by a digest. */
function accountId(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

const ipKey = (ip: string) => `login:ip:${ip}`;
const emailKey = (account: string) => `login:email:${account}`;
const lockKey = (account: string) => `login:lock:${account}`;
const recentIpKey = (account: string, ip: string) => `login:recent:${account}:${ip}`;
