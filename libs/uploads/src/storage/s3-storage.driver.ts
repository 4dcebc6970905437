import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DEFAULT_STORAGE_TIMEOUT_MS, UnavailableError, type StorageConfig } from '@app/core';
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

/** The S3_* settings, and STORAGE_TIMEOUT_MS (default {@link DEFAULT_STORAGE_TIMEOUT_MS}). */
export type S3Settings = StorageConfig['s3'] & { timeoutMs?: number };

/** What a write's deadline grows by per MiB it carries: a large file on a slow link is no stall. */
const WRITE_MS_PER_MIB = 1000;

/** S3 accepts presigned URLs valid for at least one second and at most seven days. */
const MIN_PRESIGN_SECONDS = 1;
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** The client for `STORAGE_DRIVER=s3`, from the S3_* settings (`overrides` for tests). */
export function createS3Client(settings: S3Settings, overrides: S3ClientConfig = {}): S3Client {
  const custom = settings.endpoint !== undefined;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS;
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
    // The deadline of a whole operation is the driver's abort signal; these bound one try: its
    // connect, and a socket that goes silent (a download's body included, which the signal no
    // longer watches). The handler's own `requestTimeout` only logs unless told to throw.
    requestHandler: { connectionTimeout: timeoutMs, socketTimeout: timeoutMs },
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
  private readonly timeoutMs: number;

  constructor(
    private readonly settings: S3Settings,
    private readonly client: S3Client = createS3Client(settings),
  ) {
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS;
  }

  /**
   * A write that times out may still land later: the caller records nothing that points at the
   * key before this resolves (an upload's record is inserted after), so the worst left behind
   * is an object without a record.
   */
  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const location = this.locate(key);
    const deadlineMs = this.timeoutMs + Math.ceil((body.length / 1024 / 1024) * WRITE_MS_PER_MIB);
    try {
      await this.withDeadline(deadlineMs, (abortSignal) =>
        this.client.send(
          new PutObjectCommand({
            ...location,
            Body: body,
            ContentType: contentType,
            ContentLength: body.length,
          }),
          { abortSignal },
        ),
      );
    } catch (error) {
      throw this.unavailable(error, 'write', key);
    }
  }

  async get(key: string): Promise<StoredObject> {
    const location = this.locate(key);
    try {
      const output = await this.withDeadline(this.timeoutMs, (abortSignal) =>
        this.client.send(new GetObjectCommand(location), { abortSignal }),
      );
      return {
        stream: this.readable(toNodeStream(output.Body), key),
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
      await this.withDeadline(this.timeoutMs, (abortSignal) =>
        this.client.send(new DeleteObjectCommand(location), { abortSignal }),
      );
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

  /**
   * Runs `operation` (one SDK call, its own retries included) under a deadline: past it the
   * signal aborts the try in flight, whose socket is destroyed, and the SDK tries no more.
   */
  private async withDeadline<R>(
    deadlineMs: number,
    operation: (signal: AbortSignal) => Promise<R>,
  ): Promise<R> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`No answer from S3 within ${deadlineMs} ms`)),
      deadlineMs,
    );
    try {
      return await operation(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The body of a download, failing as the driver's other failures do: a store that goes silent
   * mid-body (the socket timeout) or drops the connection is a 503, not an unknown error.
   */
  private readable(body: Readable, key: string): Readable {
    const unavailable = (error: unknown) => this.unavailable(error, 'read', key);
    async function* chunks(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of body) yield chunk as Buffer;
      } catch (error) {
        throw unavailable(error);
      }
    }
    return Readable.from(chunks(), { objectMode: false });
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
