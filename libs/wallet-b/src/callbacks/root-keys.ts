import { describeError } from '../google/access-tokens';
import type { RootSigningKey } from './ecv2-signing-only';

/** Google's root keys could not be fetched and none are cached: callbacks cannot be checked. */
export class RootKeysUnavailableError extends Error {
  constructor(reason: string) {
    super(`Google's callback signing keys are unavailable: ${reason}`);
    this.name = 'RootKeysUnavailableError';
  }
}

export interface RootKeysOptions {
  now?: () => number;
  requestTimeoutMs?: number;
  /** Cache lifetime when the answer has no `Cache-Control: max-age`. */
  defaultMaxAgeMs?: number;
  /** A refetch forced by a callback no cached key vouches for happens at most this often. */
  minRefetchIntervalMs?: number;
}

/** While the keys cannot be fetched and none are cached, wait this long between tries. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

interface Cached {
  keys: RootSigningKey[];
  fetchedAt: number;
  expiresAt: number;
}

/**
 * Google's root signing keys from WALLET_B_CALLBACK_KEYS_URL (`{"keys": [{keyValue,
 * protocolVersion, keyExpiration}]}`), cached for the answer's `Cache-Control: max-age` (less
 * `Age`), like Tink's GooglePaymentsPublicKeysManager. Fetched again when the cache expired, and
 * when a callback names a key the cache does not know (Google rotated), at most every
 * `minRefetchIntervalMs` so bad callbacks cannot make us hammer Google. When a fetch fails the
 * last keys are used: each key carries its own expiry, which verification checks. With none
 * cached, failed fetches back off (1 s, doubling to 1 min) and callbacks meanwhile get a 503
 * without a fetch.
 */
export class GoogleRootKeys {
  private cached?: Cached;
  private inflight?: Promise<RootSigningKey[]>;
  /** Failed fetches in a row with nothing cached, the last reason and when to try again. */
  private failing?: { count: number; reason: string; retryAt: number };
  private readonly now: () => number;
  private readonly requestTimeoutMs: number;
  private readonly defaultMaxAgeMs: number;
  private readonly minRefetchIntervalMs: number;

  constructor(
    private readonly url: string,
    options: RootKeysOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.defaultMaxAgeMs = options.defaultMaxAgeMs ?? 5 * 60_000;
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 30_000;
  }

  /** The cached keys while fresh, else newly fetched ones. */
  current(): Promise<RootSigningKey[]> {
    if (this.cached !== undefined && this.now() < this.cached.expiresAt) {
      return Promise.resolve(this.cached.keys);
    }
    return this.fetch();
  }

  /** Newly fetched keys, or null when the last fetch was too recent to try again. */
  async refetch(): Promise<RootSigningKey[] | null> {
    if (
      this.cached !== undefined &&
      this.now() - this.cached.fetchedAt < this.minRefetchIntervalMs
    ) {
      return null;
    }
    return this.fetch();
  }

  private fetch(): Promise<RootSigningKey[]> {
    if (this.failing !== undefined && this.now() < this.failing.retryAt) {
      // Without this, every callback arriving while Google is unreachable would fetch again.
      return Promise.reject(new RootKeysUnavailableError(this.failing.reason));
    }
    this.inflight ??= this.download().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async download(): Promise<RootSigningKey[]> {
    const fetchedAt = this.now();
    try {
      const response = await fetch(this.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const keys = parseRootKeys(await response.text());
      this.cached = { keys, fetchedAt, expiresAt: fetchedAt + this.maxAgeMs(response.headers) };
      this.failing = undefined;
      return keys;
    } catch (error) {
      if (this.cached !== undefined) {
        // Keep the old keys, but do not ask again at once.
        this.cached = {
          ...this.cached,
          fetchedAt,
          expiresAt: fetchedAt + this.minRefetchIntervalMs,
        };
        return this.cached.keys;
      }
      const count = (this.failing?.count ?? 0) + 1;
      const reason = describeError(error);
      this.failing = {
        count,
        reason,
        retryAt: fetchedAt + Math.min(FIRST_BACKOFF_MS * 2 ** (count - 1), MAX_BACKOFF_MS),
      };
      throw new RootKeysUnavailableError(reason);
    }
  }

  private maxAgeMs(headers: Headers): number {
    const maxAge = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(headers.get('cache-control') ?? '');
    if (maxAge === null) return this.defaultMaxAgeMs;
    const age = Number(headers.get('age') ?? 0);
    return Math.max(0, Number(maxAge[1]) - (Number.isFinite(age) ? age : 0)) * 1000;
  }
}

/** `{"keys": [...]}`; entries that are not well-formed are left out. */
export function parseRootKeys(text: string): RootSigningKey[] {
  const body = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error('the answer has no "keys" array');
  return body.keys.flatMap((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { keyValue, protocolVersion, keyExpiration } = entry as Record<string, unknown>;
    if (typeof keyValue !== 'string' || typeof protocolVersion !== 'string') return [];
    return [
      {
        keyValue,
        protocolVersion,
        ...(typeof keyExpiration === 'string' || typeof keyExpiration === 'number'
          ? { keyExpiration: String(keyExpiration) }
          : {}),
      },
    ];
  });
}
