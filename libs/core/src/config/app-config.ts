import { ConfigError, EnvReader, type Env } from './env-reader';
import { readAuthConfig, type JwtConfig } from './sections/auth-config';
import { readDatabaseConfig, type DatabaseConfig } from './sections/database-config';
import { readLoggingConfig, type LoggingConfig } from './sections/logging-config';
import { readRateLimitConfig, type RateLimitConfig } from './sections/rate-limit-config';
import { readRetentionConfig, type RetentionConfig } from './sections/retention-config';
import { readServerConfig, type ServerConfig } from './sections/server-config';
import {
  readStorageConfig,
  readUploadConfig,
  type StorageConfig,
  type UploadConfig,
} from './sections/storage-config';
import { readWalletAConfig, type WalletAConfig } from './sections/wallet-a-config';
import { readWalletBConfig, type WalletBConfig } from './sections/wallet-b-config';
import { readWebhooksConfig, type WebhooksConfig } from './sections/webhooks-config';
import { readWorkerConfig, type WorkerConfig } from './sections/worker-config';

export { ConfigError, type Env } from './env-reader';
export type { AuthConfig, JwtConfig } from './sections/auth-config';
export type { DatabaseConfig } from './sections/database-config';
export type { LogFormat, LoggingConfig, LogLevel } from './sections/logging-config';
export type { RateLimitConfig } from './sections/rate-limit-config';
export type { RetentionConfig } from './sections/retention-config';
export type { ServerConfig } from './sections/server-config';
export {
  DEFAULT_STORAGE_TIMEOUT_MS,
  type StorageConfig,
  type UploadConfig,
} from './sections/storage-config';
export type { WalletAConfig } from './sections/wallet-a-config';
export type { WalletBConfig } from './sections/wallet-b-config';
export type { WebhooksConfig } from './sections/webhooks-config';
export { DEFAULT_NOTIFICATION_SHARD_SIZE, type WorkerConfig } from './sections/worker-config';

/**
 * Every setting the service reads, parsed once at boot from the environment, one section per
 * reader in `sections/`. `.env.example` documents each variable.
 */
export interface AppConfig extends ServerConfig, LoggingConfig {
  database: DatabaseConfig;
  jwt: JwtConfig;
  bootstrapAdmin: { email?: string; password?: string };
  worker: WorkerConfig;
  retention: RetentionConfig;
  storage: StorageConfig;
  upload: UploadConfig;
  rateLimit: RateLimitConfig;
  walletA: WalletAConfig;
  walletB: WalletBConfig;
  webhooks: WebhooksConfig;
}

/** What a webhook delivery's lease keeps beyond its request, to write the outcome. */
export const WEBHOOK_LEASE_MARGIN_MS = 1000;

/** What a lease keeps beyond the outside calls it must outlast: the write of their outcome. */
export const LEASE_MARGIN_MS = 1000;

/**
 * The configuration of `env`: each section from its reader, then the rules that span sections.
 * Throws one {@link ConfigError} listing every problem found.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);
  const auth = readAuthConfig(read);
  const config: AppConfig = {
    ...readServerConfig(read),
    ...readLoggingConfig(read),
    database: readDatabaseConfig(read),
    ...auth,
    worker: readWorkerConfig(read),
    retention: readRetentionConfig(read),
    storage: readStorageConfig(read, auth.jwt.secret),
    upload: readUploadConfig(read),
    rateLimit: readRateLimitConfig(read),
    walletA: readWalletAConfig(read),
    walletB: readWalletBConfig(read),
    webhooks: readWebhooksConfig(read),
  };

  // A delivery's lease must outlast its request and the write of its outcome: were it shorter,
  // another worker would claim the delivery and send it while the first request is still open.
  if (config.worker.leaseMs < config.webhooks.timeoutMs + WEBHOOK_LEASE_MARGIN_MS) {
    read.problems.push(
      `WORKER_LEASE_MS (${config.worker.leaseMs}) must be at least WEBHOOK_TIMEOUT_MS ` +
        `(${config.webhooks.timeoutMs}) + ${WEBHOOK_LEASE_MARGIN_MS}: a shorter lease lets two ` +
        'workers send one webhook delivery at once',
    );
  }

  // A job that calls Google makes sure its lease outlasts the next call (a class sync: two);
  // a lease shorter than that would run out mid-call, and another worker would repeat it.
  const googleCalls = 2 * config.walletB.callBudgetMs + LEASE_MARGIN_MS;
  if (config.walletB.serviceAccountPath !== undefined && config.worker.leaseMs < googleCalls) {
    read.problems.push(
      `WORKER_LEASE_MS (${config.worker.leaseMs}) must be at least 4 × WALLET_B_TIMEOUT_MS ` +
        `(${config.walletB.timeoutMs}) + ${LEASE_MARGIN_MS}: two calls to Google, each with its ` +
        'tries, must fit in one lease',
    );
  }

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** Injection token for the parsed {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
