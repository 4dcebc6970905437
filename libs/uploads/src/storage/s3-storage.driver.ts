import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { UnavailableError, type StorageConfig } from '@app/core';
import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import {
  contentDisposition,
  isValidStorageKey,
  StoredObjectNotFoundError,
  type SignedUrlOptions,
  type StorageDriver,
  type StoredObject,
} from './storage-driver';

export type S3Settings = StorageConfig['s3'];

/** S3 accepts presigned URLs valid for at least one second and at most seven days. */
const MIN_PRESIGN_SECONDS = 1;
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** The client for `STORAGE_DRIVER=s3`, from the S3_* settings (`overrides` for tests). */
export function createS3Client(settings: S3Settings, overrides: S3ClientConfig = {}): S3Client {
  const custom = settings.endpoint !== undefined;
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    // S3-compatible stores (MinIO, Ceph, ...) behind a custom endpoint address buckets by path.
    forcePathStyle: custom,
    // Checksums only where S3 requires them: several S3-compatible stores refuse the SDK's
    // default CRC32 trailers.
    ...(custom && {
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    credentials:
      settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    ...overrides,
  });
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' ||
      error.name === 'NotFound' ||
      error.$metadata.httpStatusCode === 404)
  );
}

function toNodeStream(body: unknown): Readable {
  if (body instanceof Readable) return body;
  const web = body as { transformToWebStream?: () => ReadableStream } | undefined;
  if (typeof web?.transformToWebStream === 'function') {
    return Readable.fromWeb(web.transformToWebStream() as NodeWebReadableStream);
  }
  throw new Error('S3 returned an object without a readable body');
}

/**
 * Files in S3-compatible object storage. A key `<bucket>/<rest>` is object `<rest>` in the S3
 * bucket `S3_BUCKET_PREFIX + <bucket>`. Download URLs are presigned GETs that also fix the
 * Content-Type and Content-Disposition of the answer.
 */
export class S3StorageDriver implements StorageDriver {
  private readonly logger = new Logger(S3StorageDriver.name);

  constructor(
    private readonly settings: S3Settings,
    private readonly client: S3Client = createS3Client(settings),
  ) {}

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const location = this.locate(key);
    try {
      await this.client.send(
        new PutObjectCommand({
          ...location,
          Body: body,
          ContentType: contentType,
          ContentLength: body.length,
        }),
      );
    } catch (error) {
      throw this.unavailable(error, 'write', key);
    }
  }

  async get(key: string): Promise<StoredObject> {
    const location = this.locate(key);
    try {
      const output = await this.client.send(new GetObjectCommand(location));
      return {
        stream: toNodeStream(output.Body),
        size: output.ContentLength ?? 0,
        contentType: output.ContentType ?? 'application/octet-stream',
      };
    } catch (error) {
      if (isNotFound(error)) throw new StoredObjectNotFoundError(key);
      throw this.unavailable(error, 'read', key);
    }
  }

  async delete(key: string): Promise<void> {
    const location = this.locate(key);
    try {
      await this.client.send(new DeleteObjectCommand(location));
    } catch (error) {
      if (isNotFound(error)) return;
      throw this.unavailable(error, 'delete', key);
    }
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    const command = new GetObjectCommand({
      ...this.locate(key),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: contentDisposition(options.fileName, options.contentType),
    });
    const expiresIn = Math.min(
      MAX_PRESIGN_SECONDS,
      Math.max(MIN_PRESIGN_SECONDS, Math.trunc(options.expiresInSeconds)),
    );
    try {
      return await getSignedUrl(this.client, command, { expiresIn });
    } catch (error) {
      throw this.unavailable(error, 'sign a URL for', key);
    }
  }

  private locate(key: string): { Bucket: string; Key: string } {
    if (!isValidStorageKey(key)) throw new Error(`Not a valid storage key: ${key}`);
    const slash = key.indexOf('/');
    return {
      Bucket: `${this.settings.bucketPrefix}${key.slice(0, slash)}`,
      Key: key.slice(slash + 1),
    };
  }

  private unavailable(error: unknown, action: string, key: string): UnavailableError {
    this.logger.warn({ err: error, key }, `S3 storage could not ${action} a file`);
    return new UnavailableError('File storage is unavailable');
  }
}
