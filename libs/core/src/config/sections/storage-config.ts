import { createHmac } from 'node:crypto';
import type { EnvReader } from '../env-reader';

export interface StorageConfig {
  driver: 'local' | 's3';
  dir: string;
  /**
   * How long one operation of the object store (S3) may take, its tries included, before it is
   * given up as unavailable (503); a write gets a second more per MiB it carries. It is also
   * how long a download may go without a byte.
   */
  timeoutMs: number;
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

/** `quotaBytes`: what one workspace's uploads may take together. */
export interface UploadConfig {
  maxBytes: number;
  buckets: string[];
  quotaBytes: number;
}

/**
 * A request that stores or reads a file waits at most this long for a silent store: a few
 * seconds, like the database's deadlines, then it answers 503 with Retry-After.
 */
export const DEFAULT_STORAGE_TIMEOUT_MS = 3000;

/** Upload buckets are path segments and S3 bucket-name suffixes: S3's rules, without dots. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** A key of its own for file URLs, so a leaked file-URL key does not reveal the token secret. */
function deriveFilesSigningSecret(jwtSecret: string): string {
  return createHmac('sha256', jwtSecret)
    .update('wallet-pass-service/files-url-signing')
    .digest('hex');
}

/**
 * `STORAGE_DRIVER` and its directory or S3 settings, `STORAGE_TIMEOUT_MS`,
 * `FILES_SIGNING_SECRET` (else derived from `jwtSecret`).
 */
export function readStorageConfig(read: EnvReader, jwtSecret: string): StorageConfig {
  const signingSecret = read.optional('FILES_SIGNING_SECRET');
  if (signingSecret !== undefined && signingSecret.length < 32) {
    read.problems.push('FILES_SIGNING_SECRET must be at least 32 characters long');
  }
  const storage: StorageConfig = {
    driver: read.oneOf('STORAGE_DRIVER', ['local', 's3'] as const, 'local'),
    dir: read.string('STORAGE_DIR', './data/uploads'),
    timeoutMs: read.int('STORAGE_TIMEOUT_MS', DEFAULT_STORAGE_TIMEOUT_MS, 100, 10 * 60 * 1000),
    signingSecret: signingSecret ?? deriveFilesSigningSecret(jwtSecret),
    s3: {
      endpoint: read.url('S3_ENDPOINT', undefined, ['http:', 'https:']),
      region: read.optional('S3_REGION'),
      bucketPrefix: read.string('S3_BUCKET_PREFIX', ''),
      accessKeyId: read.optional('S3_ACCESS_KEY_ID'),
      secretAccessKey: read.optional('S3_SECRET_ACCESS_KEY'),
    },
  };
  if (storage.driver === 's3' && storage.s3.region === undefined) {
    read.problems.push('S3_REGION is required when STORAGE_DRIVER=s3');
  }
  return storage;
}

/** `UPLOAD_MAX_BYTES`, `UPLOAD_BUCKETS`, `UPLOAD_QUOTA_BYTES`. */
export function readUploadConfig(read: EnvReader): UploadConfig {
  const upload: UploadConfig = {
    maxBytes: read.int('UPLOAD_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    buckets: read.list('UPLOAD_BUCKETS', ['pass-assets', 'campaign-assets']),
    quotaBytes: read.int('UPLOAD_QUOTA_BYTES', 1024 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
  };
  for (const bucket of upload.buckets) {
    if (!BUCKET_NAME.test(bucket)) {
      read.problems.push(
        `UPLOAD_BUCKETS entries must be 3 to 63 lowercase letters, digits and hyphens (got "${bucket}")`,
      );
    }
  }
  return upload;
}
