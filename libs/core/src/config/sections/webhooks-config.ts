import type { EnvReader } from '../env-reader';

/**
 * Outgoing webhooks. `allowHttp`/`allowPrivate` open what production must keep
 * shut (cleartext URLs; loopback, private, link-local and metadata addresses), for tests and
 * closed networks. `timeoutMs` is one attempt's budget, `retryBaseMs` the ceiling of the first
 * retry's random delay (doubling up to an hour), `retryForMs` how long after its event a
 * delivery is retried before it is `Failed`.
 */
export interface WebhooksConfig {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryForMs: number;
}

/** `WEBHOOK_*`. */
export function readWebhooksConfig(read: EnvReader): WebhooksConfig {
  return {
    allowHttp: read.bool('WEBHOOK_ALLOW_HTTP', false),
    allowPrivate: read.bool('WEBHOOK_ALLOW_PRIVATE', false),
    timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    retryBaseMs: read.int('WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
    retryForMs: read.int('WEBHOOK_RETRY_FOR_MS', 24 * 3600 * 1000, 1000, 7 * 24 * 3600 * 1000),
  };
}
