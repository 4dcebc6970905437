import { readSection } from '../env-reader';
import { readStorageConfig, readUploadConfig } from './storage-config';

const JWT_SECRET = 'j'.repeat(32);
const storageOf = (env: Record<string, string>) =>
  readSection(env, (read) => readStorageConfig(read, JWT_SECRET));

describe('readStorageConfig', () => {
  it('keeps uploads on disk by default, file URLs signed with a key of their own', () => {
    const { value, problems } = storageOf({});
    expect(problems).toEqual([]);
    expect(value).toMatchObject({ driver: 'local', dir: './data/uploads', timeoutMs: 3000 });
    expect(value.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(value.signingSecret).not.toContain(JWT_SECRET);
    expect(storageOf({ FILES_SIGNING_SECRET: 'f'.repeat(32) }).value.signingSecret).toBe(
      'f'.repeat(32),
    );
  });

  it.each([
    [{ STORAGE_DRIVER: 's3' }, 'S3_REGION is required when STORAGE_DRIVER=s3'],
    [{ FILES_SIGNING_SECRET: 'short' }, 'FILES_SIGNING_SECRET must be at least 32 characters'],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must use http: or https:'],
    [{ STORAGE_TIMEOUT_MS: '50' }, 'STORAGE_TIMEOUT_MS'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(storageOf(env).problems).toEqual([expect.stringContaining(message)]);
  });
});

describe('readUploadConfig', () => {
  it('has two buckets and a gigabyte per workspace by default', () => {
    expect(readSection({}, readUploadConfig).value).toEqual({
      maxBytes: 10485760,
      buckets: ['pass-assets', 'campaign-assets'],
      quotaBytes: 1024 * 1024 * 1024,
    });
  });

  it.each([
    [{ UPLOAD_BUCKETS: ' , ' }, 'UPLOAD_BUCKETS must list at least one value'],
    [{ UPLOAD_BUCKETS: 'Pass_Assets' }, 'UPLOAD_BUCKETS entries must be 3 to 63 lowercase'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(readSection(env, readUploadConfig).problems).toEqual([expect.stringContaining(message)]);
  });
});
