import {
  APP_CONFIG,
  ConflictError,
  ID_PATTERN,
  InvalidInputError,
  MUST_NOT_BE_EMPTY,
  NotFoundError,
  PayloadTooLargeError,
  stampCreated,
  UnsupportedMediaTypeError,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Repository } from 'typeorm';
import { PNG, sniffContentType, type KnownContentType } from './content/content-type';
import { passImageProblem } from './content/pass-images';
import { PNG_HEADER_BYTES, readPngHeader, type PngHeader } from './content/png-header';
import { sanitizeFileName } from './content/file-name';
import {
  derivedStorageKey,
  STORAGE_DRIVER,
  StoredObjectNotFoundError,
  uploadStorageKey,
  type StorageDriver,
  type StoredObject,
} from './storage/storage-driver';
import { Upload } from './upload.entity';

/** The bucket of an upload that names none. */
export const DEFAULT_BUCKET = 'pass-assets';

/** Buckets whose files must be of one of these types; other buckets take any known type. */
const BUCKET_CONTENT_TYPES: Record<string, readonly KnownContentType[]> = {
  // Pass images must really be PNG (spec: logo, icon and strip in png format).
  [DEFAULT_BUCKET]: [PNG],
};

export interface UploadInput {
  /** The file's bytes. */
  body: Buffer;
  /** The name the client gave; sanitised before use. */
  fileName: string;
  /** One of UPLOAD_BUCKETS; absent means {@link DEFAULT_BUCKET}. */
  bucket?: string;
}

/**
 * Uploaded files of a workspace: checks them (bucket, size, real content type), stores the
 * bytes through the storage driver and keeps a record whose id is the `uploadKey`. Other
 * modules use it to resolve an `uploadKey` and hand out download URLs.
 */
@Injectable()
export class UploadsService {
  private readonly logger = new Logger(UploadsService.name);

  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async upload(workspaceId: string, actorId: string, input: UploadInput): Promise<Upload> {
    const bucket = this.checkBucket(input.bucket);
    const { maxBytes } = this.config.upload;
    if (input.body.length > maxBytes) throw new PayloadTooLargeError(maxBytes);
    if (input.body.length === 0) throw new InvalidInputError({ file: MUST_NOT_BE_EMPTY });
    const fileName = sanitizeFileName(input.fileName);
    const contentType = this.checkContentType(bucket, input.body, fileName);
    if (bucket === DEFAULT_BUCKET) checkPassImage(input.body);
    await this.checkQuota(workspaceId, input.body.length);

    const upload = stampCreated(
      this.uploads.create({
        workspaceId,
        bucket,
        fileName,
        contentType,
        size: input.body.length,
        sha256: createHash('sha256').update(input.body).digest('hex'),
      }),
      actorId,
    );
    upload.storageKey = uploadStorageKey(bucket, workspaceId, upload.id, fileName);

    await this.storage.put(upload.storageKey, input.body, contentType);
    try {
      await this.uploads.insert(upload);
    } catch (error) {
      // No record, so no file either: remove what was stored before reporting the failure.
      await this.storage.delete(upload.storageKey).catch((cleanupError: unknown) => {
        this.logger.error(
          { err: cleanupError, storageKey: upload.storageKey },
          'Could not remove the file of an upload whose record was not saved',
        );
      });
      throw error;
    }
    return upload;
  }

  /** An upload of this workspace; one of another workspace is "not found", never shown. */
  async getForWorkspace(workspaceId: string, uploadKey: string): Promise<Upload> {
    const upload =
      ID_PATTERN.test(uploadKey) && uploadKey.length <= 64
        ? await this.uploads.findOneBy({ workspaceId, id: uploadKey })
        : null;
    if (upload === null) throw new NotFoundError('Upload', uploadKey);
    return upload;
  }

  /** A time-limited download URL for the file (one hour unless told otherwise). */
  signedUrl(upload: Upload, expiresInSeconds = 3600): Promise<string> {
    return this.storage.signedUrl(upload.storageKey, {
      fileName: upload.fileName,
      contentType: upload.contentType,
      expiresInSeconds,
    });
  }

  /** The file's bytes as a stream, e.g. to put an image into a pass package. */
  async open(upload: Upload): Promise<StoredObject> {
    try {
      return await this.storage.get(upload.storageKey);
    } catch (error) {
      if (error instanceof StoredObjectNotFoundError) throw new NotFoundError('Upload', upload.id);
      throw error;
    }
  }

  /**
   * The whole file, refusing to hold more than `maxBytes` of it in memory (a file that grew
   * behind the record's back, or a record from before a limit existed).
   */
  async readBytes(upload: Upload, maxBytes: number): Promise<Buffer> {
    const { stream } = await this.open(upload);
    const bytes = await readAtMost(stream, maxBytes);
    if (bytes === undefined) {
      throw new ConflictError(`Upload ${upload.id} is larger than ${maxBytes} bytes`, {
        uploadKey: upload.id,
      });
    }
    return bytes;
  }

  /**
   * A file made from the upload and stored beside it under `name` (`derivedStorageKey`), or
   * `undefined` when there is none or it is larger than `maxBytes`: its maker makes it again.
   */
  async readDerived(upload: Upload, name: string, maxBytes: number): Promise<Buffer | undefined> {
    let stored: StoredObject;
    try {
      stored = await this.storage.get(
        derivedStorageKey(upload.bucket, upload.workspaceId, upload.id, name),
      );
    } catch (error) {
      if (error instanceof StoredObjectNotFoundError) return undefined;
      throw error;
    }
    return readAtMost(stored.stream, maxBytes);
  }

  /** Stores a file made from the upload under `name`, replacing the one before it. */
  storeDerived(upload: Upload, name: string, body: Buffer, contentType: string): Promise<void> {
    return this.storage.put(
      derivedStorageKey(upload.bucket, upload.workspaceId, upload.id, name),
      body,
      contentType,
    );
  }

  /** The PNG header of a stored image, reading only its first bytes; `undefined` if not PNG. */
  async pngHeader(upload: Upload): Promise<PngHeader | undefined> {
    const { stream } = await this.open(upload);
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        total += chunk.length;
        if (total >= PNG_HEADER_BYTES) break;
      }
    } finally {
      stream.destroy();
    }
    return readPngHeader(Buffer.concat(chunks, total));
  }

  /**
   * A workspace's uploads together stay within UPLOAD_QUOTA_BYTES. Checked before storing, not
   * under a lock: uploads racing each other can pass together, overshooting by at most what
   * they carry, which bounds the overshoot by concurrency × UPLOAD_MAX_BYTES.
   */
  private async checkQuota(workspaceId: string, size: number): Promise<void> {
    const { quotaBytes } = this.config.upload;
    const used = Number((await this.uploads.sum('size', { workspaceId })) ?? 0);
    if (used + size > quotaBytes) {
      throw new PayloadTooLargeError(quotaBytes, {
        message: `The workspace's uploads would exceed its storage quota of ${quotaBytes} bytes`,
        context: { quotaBytes, usedBytes: used },
      });
    }
  }

  private checkBucket(bucket: string | undefined): string {
    const chosen = bucket ?? DEFAULT_BUCKET;
    const allowed = this.config.upload.buckets;
    if (!allowed.includes(chosen)) {
      throw new InvalidInputError({ bucket: `must be one of ${allowed.join(', ')}` });
    }
    return chosen;
  }

  private checkContentType(bucket: string, body: Buffer, fileName: string): KnownContentType {
    const detected = sniffContentType(body, fileName);
    const accepted = BUCKET_CONTENT_TYPES[bucket];
    if (detected === undefined || (accepted !== undefined && !accepted.includes(detected))) {
      const expected =
        accepted === undefined
          ? 'PNG, JPEG, GIF, WebP, PDF or CSV (UTF-8, .csv name)'
          : accepted.join(', ');
      throw new UnsupportedMediaTypeError(
        `Files in bucket ${bucket} must be ${expected}; the content is ${detected ?? 'not a recognised type'}`,
        { bucket, contentType: detected ?? null },
      );
    }
    return detected;
  }
}

/** The whole stream, or `undefined` (and the stream closed) once it passes `maxBytes`. */
async function readAtMost(stream: Readable, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** A pass image must be a PNG no larger, in pixels and in bytes, than any pass image can be. */
function checkPassImage(body: Buffer): void {
  const header = readPngHeader(body);
  if (header === undefined) {
    throw new InvalidInputError({ file: 'is not a valid PNG (malformed IHDR header)' });
  }
  const problem = passImageProblem(header, body.length);
  if (problem !== undefined) throw new InvalidInputError({ file: `this PNG ${problem}` });
}
