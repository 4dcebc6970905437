import type { LoggerService } from '@nestjs/common';

/**
 * `background` for Wallet pass updates: the push carries no alert, Wallet only learns that the
 * pass changed and asks the web service for it. Apple requires priority 5 with this type.
 */
export type ApnsPushType = 'background' | 'alert';

export interface ApnsNotification {
  /** The JSON payload; Wallet pass updates send an empty dictionary. Default `{}`. */
  payload?: object;
  /** Default `background`. */
  pushType?: ApnsPushType;
  /** Default 5 for `background` (Apple refuses 10 there), 10 for `alert`. */
  priority?: 5 | 10;
  /**
   * When APNs may drop the notification if it cannot deliver it: a UNIX time in seconds (or a
   * Date). 0 means "deliver now or never". Absent: no `apns-expiration` header is sent.
   */
  expiration?: number | Date;
}

/**
 * What became of one push.
 * - `sent`: APNs accepted it (200); `apnsId` is APNs' id for it.
 * - `unregistered`: the device token is no longer valid for this topic (410, or 400
 *   BadDeviceToken / DeviceTokenNotForTopic, or a token that is not a device token at all); the
 *   caller removes the registration. `at` is when APNs last confirmed it invalid (410 only).
 * - `failed`: anything else, after the retries allowed.
 */
export type ApnsResult =
  | { status: 'sent'; apnsId: string }
  | { status: 'unregistered'; reason: string; at?: Date }
  | { status: 'failed'; reason: string; httpStatus?: number };

export interface ApnsDelivery {
  token: string;
  result: ApnsResult;
  /** The token's position among those given (0 for the first), whatever order results come in. */
  index: number;
}

/** Provider-token (JWT) authentication with a .p8 key from the developer account. */
export interface ApnsTokenAuth {
  kind: 'token';
  /** The EC P-256 private key of the .p8 file (PKCS#8 PEM). */
  keyPem: string;
  /** The 10-character key id Apple gave with the key (JWT header `kid`). */
  keyId: string;
  /** The team id (JWT claim `iss`). */
  teamId: string;
  /** Extra CA certificates to trust for the server (tests with a TLS fake). */
  ca?: string | Buffer;
}

/** TLS client-certificate authentication with the pass type ID certificate. */
export interface ApnsCertificateAuth {
  kind: 'certificate';
  certPem: string;
  keyPem: string;
  /** Extra CA certificates to trust for the server (tests with a TLS fake). */
  ca?: string | Buffer;
}

/** No usable credentials: every push fails at once with `reason`, nothing is sent. */
export interface ApnsUnavailableAuth {
  kind: 'unavailable';
  reason: string;
}

export type ApnsAuth = ApnsTokenAuth | ApnsCertificateAuth | ApnsUnavailableAuth;

export interface ApnsRetryOptions {
  /** Tries in all, the first one included. Default 5. */
  attempts: number;
  /** Ceiling of the first backoff; each later one doubles it (full jitter). Default 200 ms. */
  baseDelayMs: number;
  /** Largest backoff ceiling. Default 10 s. */
  maxDelayMs: number;
}

export interface ApnsClientOptions {
  /** `https://api.push.apple.com`, or `http://host:port` for cleartext HTTP/2 (test fakes). */
  url: string;
  /** `apns-topic`: for Wallet pass updates, the pass type identifier. */
  topic: string;
  auth: ApnsAuth;
  /** Streams in flight per connection (lowered to the server's SETTINGS value). Default 500. */
  maxConcurrentStreams?: number;
  /** Connections in the pool. Default 1. */
  connections?: number;
  /** Time allowed for connecting and for each request. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * Time a connection has to answer a PING once one of its requests timed out; without an
   * answer it is taken for stalled and destroyed, and its pushes are retried on a new one.
   * Default 5 s.
   */
  pingTimeoutMs?: number;
  retry?: Partial<ApnsRetryOptions>;
  logger?: LoggerService;
  /** Milliseconds since the epoch; for tests of the provider-token refresh. */
  clock?: () => number;
  /** A number in [0, 1); for tests of the backoff jitter. */
  random?: () => number;
}
