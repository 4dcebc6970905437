import { createHmac, randomBytes } from 'node:crypto';

/**
 * Every setting the service reads, parsed once at boot from the environment.
 * Variable names follow DESIGN.md §5; `.env.example` documents each one.
 */
export interface AppConfig {
  port: number;
  publicBaseUrl: string;
  /**
   * Browser origins allowed to call the API cross-origin (CORS): exact origins, or `'*'` for
   * any. Empty: no CORS headers at all, so browsers keep other sites' scripts out.
   */
  corsOrigins: string[] | '*';
  /** Proxy hops in front of the service whose X-Forwarded-For is trusted (for client IPs). */
  trustProxyHops: number;
  /** Time a client has to send a whole request, body included, after its headers. */
  requestDeadlineMs: number;
  logLevel: LogLevel;
  /** `auto`: readable lines on a terminal, JSON otherwise (a file, a pipe, a log collector). */
  logFormat: LogFormat;
  database: DatabaseConfig;
  jwt: JwtConfig;
  bootstrapAdmin: { email?: string; password?: string };
  /**
   * `leaseMs`: how long a claimed job (notification, pass update, WalletB sync) stays with the
   * worker that claimed it without a checkpoint; after that another worker takes it over.
   * `notificationShardSize`: how many WalletA devices one shard of a notification's fan-out
   * holds (the unit workers share a notification in). `bulkChangeBatchSize`: how many holders
   * one transaction of a bulk change changes (the unit a killed worker's successor redoes).
   */
  worker: {
    enabled: boolean;
    schedulerIntervalMs: number;
    leaseMs: number;
    notificationShardSize: number;
    bulkChangeBatchSize: number;
  };
  retention: RetentionConfig;
  storage: StorageConfig;
  /** `quotaBytes`: what one workspace's uploads may take together. */
  upload: { maxBytes: number; buckets: string[]; quotaBytes: number };
  rateLimit: RateLimitConfig;
  walletA: WalletAConfig;
  walletB: WalletBConfig;
  webhooks: WebhooksConfig;
}

/**
 * Outgoing webhooks (DESIGN.md §7). `allowHttp`/`allowPrivate` open what production must keep
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

/**
 * Devices per shard of a notification's fan-out: about a second of pushes for one worker
 * (12,000/s in bench:fanout), so N workers share a large audience in steps of a second, while an
 * audience up to this size stays one shard (one row, one claim).
 */
export const DEFAULT_NOTIFICATION_SHARD_SIZE = 10_000;

/**
 * Holders per transaction of a bulk change: each is locked, written, indexed for audiences and
 * told to webhooks within it, so a batch stays well under a second on MariaDB while 100,000
 * holders take 200 transactions.
 */
export const DEFAULT_BULK_CHANGE_BATCH_SIZE = 500;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'auto' | 'json' | 'pretty';

export type DatabaseConfig =
  | { type: 'sqlite'; path: string; migrateOnStart: boolean }
  | {
      type: 'mysql';
      url: string;
      migrateOnStart: boolean;
      poolSize: number;
      /**
       * How long a database host that stops answering may hold a request: opening a connection
       * (TCP and handshake), waiting for a pooled one, and one query. See mysql-deadlines.ts.
       */
      timeouts: { connectMs: number; acquireMs: number; queryMs: number };
    };

/**
 * Deleting finished work: rows finished more than `days` ago, at most `batchSize` per
 * statement and `maxRowsPerRun` per table and run, every `intervalMs` where workers run.
 */
export interface RetentionConfig {
  days: number;
  intervalMs: number;
  batchSize: number;
  maxRowsPerRun: number;
}

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

export interface JwtConfig {
  /** HS256 secret used to sign and verify the tokens issued by `POST /v1/auth/login`. */
  secret: string;
  /** True when no JWT_SECRET was configured and a random one was made for this process. */
  secretGenerated: boolean;
  /** PEM public key of an identity provider whose RS256/ES256 tokens are also accepted. */
  publicKey?: string;
  /** Required `iss` of identity-provider tokens (JWT_PUBLIC_KEY), when set. */
  issuer?: string;
  /** Required `aud` of identity-provider tokens (JWT_PUBLIC_KEY), when set. */
  audience?: string;
  expiresInSeconds: number;
}

export interface StorageConfig {
  driver: 'local' | 's3';
  dir: string;
  /**
   * HMAC-SHA256 key of the signed `/files/...` download URLs of the local driver. Without
   * FILES_SIGNING_SECRET it is derived from the JWT secret, so it is shared whenever that is.
   */
  signingSecret: string;
  s3: {
    endpoint?: string;
    region?: string;
    bucketPrefix: string;
    accessKeyId?: string;
    secretAccessKey?: string;
  };
}

export interface WalletAConfig {
  passTypeId: string;
  teamId: string;
  certPath?: string;
  keyPath?: string;
  wwdrPath?: string;
  /** Where the generated development CA and pass certificate are kept when none is configured. */
  devCertDir: string;
  /**
   * What devices post to the web service's `/log`, kept per pass: at most `perPass` distinct
   * messages (the least recently seen go), at most `perSourcePerHour` new ones a client IP
   * adds to one pass an hour (more are dropped).
   */
  deviceLogs: { perPass: number; perSourcePerHour: number };
  apnsUrl: string;
  apnsKeyPath?: string;
  apnsKeyId?: string;
  /**
   * What bounds Apple's web service without refusing real devices (docs/decisions.md, "PassKit
   * registrations"): active registrations one source (a client IPv4 address, an IPv6 /64) keeps
   * of one shared pass, and one holder's copy keeps; newer ones replace the oldest.
   */
  devicesPerSource: number;
  devicesPerHolder: number;
  /** Refused `ApplePass` credentials a client IP may send a minute before it gets 429. */
  refusedPerIpPerMinute: number;
  /** Record which version each device fetched (`appleConfirmedCount`, `/delivery`). */
  fetchConfirmations: boolean;
}

export interface WalletBConfig {
  issuerId: string;
  serviceAccountPath?: string;
  apiUrl: string;
  callbackKeysUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Collects every problem before failing, so one boot shows all that is wrong. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.optional(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }

  url(name: string, fallback: string | undefined, protocols: string[]): string | undefined {
    const raw = this.optional(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${raw}")`);
      }
    } catch {
      this.problems.push(`${name} must be a URL (got "${raw}")`);
    }
    return raw.replace(/\/+$/, '');
  }

  list(name: string, fallback: string[]): string[] {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const values = raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    if (values.length === 0) this.problems.push(`${name} must list at least one value`);
    return values;
  }
}

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** Upload buckets are path segments and S3 bucket-name suffixes: S3's rules, without dots. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** A key of its own for file URLs, so a leaked file-URL key does not reveal the token secret. */
function deriveFilesSigningSecret(jwtSecret: string): string {
  return createHmac('sha256', jwtSecret)
    .update('wallet-pass-service/files-url-signing')
    .digest('hex');
}

/**
 * `CORS_ORIGINS`: a comma-separated list of exact origins (`scheme://host[:port]`, as browsers
 * send them in `Origin`), or `*` alone. A path, a trailing slash or a wildcard inside a name
 * would never equal an `Origin` header, so those are configuration errors rather than silently
 * allowing nothing.
 */
function isExactOrigin(value: string): boolean {
  try {
    const parsed = new URL(value);
    return ['http:', 'https:'].includes(parsed.protocol) && parsed.origin === value;
  } catch {
    return false;
  }
}

function readCorsOrigins(read: EnvReader): string[] | '*' {
  const origins = read.list('CORS_ORIGINS', []);
  if (origins.includes('*')) {
    if (origins.length > 1) read.problems.push('CORS_ORIGINS: "*" must stand alone');
    return '*';
  }
  for (const origin of origins) {
    if (!isExactOrigin(origin)) {
      read.problems.push(
        `CORS_ORIGINS entries must be origins such as https://app.example.com, without path or trailing slash (got "${origin}")`,
      );
    }
  }
  return origins;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);

  const dbType = read.oneOf('DB_TYPE', ['sqlite', 'mysql'] as const, 'sqlite');
  const migrateOnStart = read.bool('DB_MIGRATE_ON_START', true);
  let database: DatabaseConfig;
  if (dbType === 'mysql') {
    const url = read.url('DB_URL', undefined, ['mysql:', 'mariadb:']);
    if (url === undefined) read.problems.push('DB_URL is required when DB_TYPE=mysql');
    database = {
      type: 'mysql',
      url: url ?? '',
      migrateOnStart,
      poolSize: read.int('DB_POOL_SIZE', 10, 1, 500),
      // Below the 5 s in which a request should learn that the database is away (a 503).
      timeouts: {
        connectMs: read.int('DB_CONNECT_TIMEOUT_MS', 3000, 100, 120_000),
        acquireMs: read.int('DB_ACQUIRE_TIMEOUT_MS', 3000, 100, 120_000),
        queryMs: read.int('DB_QUERY_TIMEOUT_MS', 4000, 100, 3_600_000),
      },
    };
  } else {
    database = {
      type: 'sqlite',
      path: read.string('DB_PATH', './data/wallet.sqlite'),
      migrateOnStart,
    };
  }

  const configuredSecret = read.optional('JWT_SECRET');
  if (configuredSecret !== undefined && configuredSecret.length < 32) {
    read.problems.push('JWT_SECRET must be at least 32 characters long');
  }
  const filesSigningSecret = read.optional('FILES_SIGNING_SECRET');
  if (filesSigningSecret !== undefined && filesSigningSecret.length < 32) {
    read.problems.push('FILES_SIGNING_SECRET must be at least 32 characters long');
  }
  const jwtPublicKey = read.optional('JWT_PUBLIC_KEY');
  if (jwtPublicKey !== undefined && !jwtPublicKey.includes('BEGIN PUBLIC KEY')) {
    read.problems.push('JWT_PUBLIC_KEY must be a PEM public key ("-----BEGIN PUBLIC KEY-----")');
  }

  const jwtIssuer = read.optional('JWT_ISSUER');
  const jwtAudience = read.optional('JWT_AUDIENCE');
  if (jwtPublicKey === undefined && (jwtIssuer !== undefined || jwtAudience !== undefined)) {
    // Our own HS256 tokens carry neither; these describe the identity provider's tokens.
    read.problems.push(
      'JWT_ISSUER and JWT_AUDIENCE apply to JWT_PUBLIC_KEY tokens: set JWT_PUBLIC_KEY',
    );
  }

  const bootstrapEmail = read.optional('BOOTSTRAP_ADMIN_EMAIL');
  const bootstrapPassword = read.optional('BOOTSTRAP_ADMIN_PASSWORD');
  if ((bootstrapEmail === undefined) !== (bootstrapPassword === undefined)) {
    read.problems.push('BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together');
  }
  if (bootstrapPassword !== undefined && bootstrapPassword.length < 8) {
    read.problems.push('BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters long');
  }

  const jwtSecret = configuredSecret ?? randomBytes(48).toString('base64url');
  const port = read.int('PORT', 3000, 0, 65535);
  const perMinute = read.int('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000);

  const config: AppConfig = {
    port,
    trustProxyHops: read.int('TRUST_PROXY_HOPS', 0, 0, 10),
    requestDeadlineMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 10 * 60_000),
    // The links handed out must reach this process when nothing else is configured, so the
    // default follows PORT (it used to stay on 3000 whatever the port).
    publicBaseUrl: read.url('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
    corsOrigins: readCorsOrigins(read),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: read.oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    database,
    jwt: {
      secret: jwtSecret,
      secretGenerated: configuredSecret === undefined,
      publicKey: jwtPublicKey?.replace(/\\n/g, '\n'),
      issuer: jwtIssuer,
      audience: jwtAudience,
      expiresInSeconds: read.int('JWT_EXPIRES_IN_SECONDS', 3600, 60, 7 * 24 * 3600),
    },
    bootstrapAdmin: { email: bootstrapEmail, password: bootstrapPassword },
    worker: {
      enabled: read.bool('WORKER_ENABLED', true),
      schedulerIntervalMs: read.int('SCHEDULER_INTERVAL_MS', 5000, 100, 15 * 60 * 1000),
      leaseMs: read.int('WORKER_LEASE_MS', 60_000, 1000, 60 * 60 * 1000),
      notificationShardSize: read.int(
        'NOTIFICATION_SHARD_SIZE',
        DEFAULT_NOTIFICATION_SHARD_SIZE,
        1,
        1_000_000,
      ),
      bulkChangeBatchSize: read.int(
        'BULK_CHANGE_BATCH_SIZE',
        DEFAULT_BULK_CHANGE_BATCH_SIZE,
        1,
        5000,
      ),
    },
    retention: {
      days: read.int('RETENTION_DAYS', 30, 1, 3650),
      intervalMs: read.int('RETENTION_INTERVAL_MS', 60 * 60 * 1000, 1000, 7 * 24 * 3600 * 1000),
      batchSize: read.int('RETENTION_BATCH_SIZE', 1000, 1, 10_000),
      maxRowsPerRun: read.int('RETENTION_MAX_ROWS_PER_RUN', 100_000, 1, 10_000_000),
    },
    storage: {
      driver: read.oneOf('STORAGE_DRIVER', ['local', 's3'] as const, 'local'),
      dir: read.string('STORAGE_DIR', './data/uploads'),
      signingSecret: filesSigningSecret ?? deriveFilesSigningSecret(jwtSecret),
      s3: {
        endpoint: read.url('S3_ENDPOINT', undefined, ['http:', 'https:']),
        region: read.optional('S3_REGION'),
        bucketPrefix: read.string('S3_BUCKET_PREFIX', ''),
        accessKeyId: read.optional('S3_ACCESS_KEY_ID'),
        secretAccessKey: read.optional('S3_SECRET_ACCESS_KEY'),
      },
    },
    upload: {
      maxBytes: read.int('UPLOAD_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      buckets: read.list('UPLOAD_BUCKETS', ['pass-assets', 'campaign-assets']),
      quotaBytes: read.int('UPLOAD_QUOTA_BYTES', 1024 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    },
    rateLimit: {
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
    },
    walletA: {
      passTypeId: read.string('WALLET_A_PASS_TYPE_ID', 'pass.com.example.wallet-pass-service'),
      teamId: read.string('WALLET_A_TEAM_ID', 'DEVTEAM000'),
      certPath: read.optional('WALLET_A_CERT'),
      keyPath: read.optional('WALLET_A_KEY'),
      wwdrPath: read.optional('WALLET_A_WWDR'),
      devCertDir: read.string('WALLET_A_DEV_CERT_DIR', './data/wallet-a'),
      deviceLogs: {
        perPass: read.int('PASSKIT_DEVICE_LOGS_PER_PASS', 200, 1, 10_000),
        perSourcePerHour: read.int('PASSKIT_DEVICE_LOGS_PER_SOURCE_PER_HOUR', 20, 1, 1_000_000),
      },
      apnsUrl: read.url('WALLET_A_APNS_URL', 'https://api.push.apple.com', ['http:', 'https:'])!,
      apnsKeyPath: read.optional('WALLET_A_APNS_KEY'),
      apnsKeyId: read.optional('WALLET_A_APNS_KEY_ID'),
      devicesPerSource: read.int('PASSKIT_DEVICES_PER_SOURCE', 5000, 1, 10_000_000),
      devicesPerHolder: read.int('PASSKIT_DEVICES_PER_HOLDER', 10, 1, 1000),
      refusedPerIpPerMinute: read.int('PASSKIT_REFUSED_PER_IP_PER_MINUTE', 60, 1, 1_000_000),
      fetchConfirmations: read.bool('PASSKIT_FETCH_CONFIRMATIONS', true),
    },
    walletB: {
      issuerId: read.string('WALLET_B_ISSUER_ID', '3388000000000000000'),
      serviceAccountPath: read.optional('WALLET_B_SERVICE_ACCOUNT'),
      apiUrl: read.url('WALLET_B_API_URL', 'https://walletobjects.googleapis.com', [
        'http:',
        'https:',
      ])!,
      callbackKeysUrl: read.url(
        'WALLET_B_CALLBACK_KEYS_URL',
        'https://pay.google.com/gp/m/issuer/keys',
        ['http:', 'https:'],
      )!,
    },
    webhooks: {
      allowHttp: read.bool('WEBHOOK_ALLOW_HTTP', false),
      allowPrivate: read.bool('WEBHOOK_ALLOW_PRIVATE', false),
      timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retryBaseMs: read.int('WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
      retryForMs: read.int('WEBHOOK_RETRY_FOR_MS', 24 * 3600 * 1000, 1000, 7 * 24 * 3600 * 1000),
    },
  };

  for (const bucket of config.upload.buckets) {
    if (!BUCKET_NAME.test(bucket)) {
      read.problems.push(
        `UPLOAD_BUCKETS entries must be 3 to 63 lowercase letters, digits and hyphens (got "${bucket}")`,
      );
    }
  }
  if (config.storage.driver === 's3' && config.storage.s3.region === undefined) {
    read.problems.push('S3_REGION is required when STORAGE_DRIVER=s3');
  }
  const signingFiles = [config.walletA.certPath, config.walletA.keyPath, config.walletA.wwdrPath];
  if (
    signingFiles.some((path) => path !== undefined) &&
    signingFiles.some((path) => path === undefined)
  ) {
    read.problems.push('WALLET_A_CERT, WALLET_A_KEY and WALLET_A_WWDR must be set together');
  }
  if ((config.walletA.apnsKeyPath === undefined) !== (config.walletA.apnsKeyId === undefined)) {
    read.problems.push('WALLET_A_APNS_KEY and WALLET_A_APNS_KEY_ID must be set together');
  }

  // A delivery's lease must outlast its request and the write of its outcome: were it shorter,
  // another worker would claim the delivery and send it while the first request is still open.
  if (config.worker.leaseMs < config.webhooks.timeoutMs + WEBHOOK_LEASE_MARGIN_MS) {
    read.problems.push(
      `WORKER_LEASE_MS (${config.worker.leaseMs}) must be at least WEBHOOK_TIMEOUT_MS ` +
        `(${config.webhooks.timeoutMs}) + ${WEBHOOK_LEASE_MARGIN_MS}: a shorter lease lets two ` +
        'workers send one webhook delivery at once',
    );
  }

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** What a webhook delivery's lease keeps beyond its request, to write the outcome. */
export const WEBHOOK_LEASE_MARGIN_MS = 1000;

/** Injection token for the parsed {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
