import type { EnvReader } from '../env-reader';

export interface RateLimitConfig {
  /** Requests a minute per caller: one API key, one user's bearer tokens, or one client IP. */
  perMinute: number;
  /** Requests a minute per user, all their API keys and tokens together. */
  perUserPerMinute: number;
  /** Refused credentials (bad keys, bad or expired tokens) per client IP and window. */
  authFailures: { perIp: number; windowSeconds: number };
  /** `POST /v1/auth/login` (and wrong current passwords): see docs/decisions.md, Rate limiting. */
  login: {
    failuresPerIp: number;
    /** Failures of one e-mail address before its exponential backoff starts. */
    failuresPerEmail: number;
    windowSeconds: number;
    backoffMaxSeconds: number;
  };
  redisUrl?: string;
  redisKeyPrefix: string;
}

/** `RATE_LIMIT_*`, `AUTH_FAILURE*`, `LOGIN_*`, `REDIS_URL`, `REDIS_KEY_PREFIX`. */
export function readRateLimitConfig(read: EnvReader): RateLimitConfig {
  const perMinute = read.int('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000);
  return {
    perMinute,
    perUserPerMinute: read.int(
      'RATE_LIMIT_PER_USER_PER_MINUTE',
      Math.min(2 * perMinute, 1_000_000),
      1,
      1_000_000,
    ),
    authFailures: {
      perIp: read.int('AUTH_FAILURES_PER_IP', 30, 1, 1_000_000),
      windowSeconds: read.int('AUTH_FAILURE_WINDOW_SECONDS', 300, 1, 24 * 3600),
    },
    login: {
      failuresPerIp: read.int('LOGIN_FAILURES_PER_IP', 20, 1, 1_000_000),
      failuresPerEmail: read.int('LOGIN_FAILURES_PER_EMAIL', 5, 1, 1000),
      windowSeconds: read.int('LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 24 * 3600),
      backoffMaxSeconds: read.int('LOGIN_BACKOFF_MAX_SECONDS', 60, 1, 3600),
    },
    redisUrl: read.url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'wps:'),
  };
}
