import { UnavailableError } from '@app/core';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { FileUrlSigner } from './file-url-signer';
import {
  isValidStorageKey,
  StoredObjectNotFoundError,
  type SignedUrlOptions,
  type StorageDriver,
  type StoredObject,
} from './storage-driver';

interface ObjectMeta {
  contentType: string;
}

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const isMissing = (error: unknown): boolean =>
  ['ENOENT', 'ENOTDIR'].includes(errorCode(error) ?? '');

/**
 * Files on local disk under `STORAGE_DIR`, one file per key at `<dir>/<key>`. The content type
 * is kept beside it in `.<name>.meta.json`: a name starting with a dot is never a key segment,
 * so it cannot clash with a file. Writes go to a temporary file in the same directory, are
 * flushed, then renamed into place, so a reader never sees half a file. Download URLs are
 * HMAC-signed and served by `GET /files/{*key}`.
 */
export class LocalStorageDriver implements StorageDriver {
  private readonly logger = new Logger(LocalStorageDriver.name);
  private readonly root: string;

  constructor(
    dir: string,
    private readonly signer: FileUrlSigner,
  ) {
    this.root = resolve(dir);
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const target = this.pathOf(key);
    if (target === undefined) throw new Error(`Not a valid storage key: ${key}`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await this.writeAtomically(
        this.metaPathOf(target),
        Buffer.from(JSON.stringify({ contentType })),
      );
      await this.writeAtomically(target, body);
    } catch (error) {
      throw this.unavailable(error, 'write', key);
    }
  }

  async get(key: string): Promise<StoredObject> {
    const path = this.pathOf(key);
    if (path === undefined) throw new StoredObjectNotFoundError(key);
    // Open first and measure the open file, so a delete in between cannot mismatch the two.
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error) || errorCode(error) === 'EISDIR')
        throw new StoredObjectNotFoundError(key);
      throw this.unavailable(error, 'open', key);
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new StoredObjectNotFoundError(key);
      const contentType = await this.readContentType(path);
      return { stream: handle.createReadStream(), size: stats.size, contentType };
    } catch (error) {
      await handle.close().catch(() => undefined);
      if (error instanceof StoredObjectNotFoundError) throw error;
      throw this.unavailable(error, 'open', key);
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    if (path === undefined) throw new Error(`Not a valid storage key: ${key}`);
    try {
      for (const file of [path, this.metaPathOf(path)]) {
        await unlink(file).catch((error: unknown) => {
          if (!isMissing(error)) throw error;
        });
      }
    } catch (error) {
      throw this.unavailable(error, 'delete', key);
    }
    // Each upload has a directory of its own; leave no empty ones behind.
    await rmdir(dirname(path)).catch(() => undefined);
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- async so a bad key rejects
  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    if (!isValidStorageKey(key)) throw new Error(`Not a valid storage key: ${key}`);
    return this.signer.url(key, options.expiresInSeconds);
  }

  /** The file of a key, or `undefined` for a key that could point outside the root. */
  private pathOf(key: string): string | undefined {
    if (!isValidStorageKey(key)) return undefined;
    const path = resolve(this.root, ...key.split('/'));
    return path.startsWith(this.root + sep) ? path : undefined;
  }

  private metaPathOf(path: string): string {
    return join(dirname(path), `.${basename(path)}.meta.json`);
  }

  private async readContentType(path: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(this.metaPathOf(path), 'utf8')) as Partial<ObjectMeta>;
      return typeof meta.contentType === 'string' ? meta.contentType : DEFAULT_CONTENT_TYPE;
    } catch (error) {
      if (isMissing(error)) return DEFAULT_CONTENT_TYPE;
      throw error;
    }
  }

  private async writeAtomically(target: string, data: Buffer): Promise<void> {
    const temporary = join(dirname(target), `.${randomBytes(8).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx');
    try {
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  private unavailable(error: unknown, action: string, key: string): UnavailableError {
    this.logger.warn({ err: error, key }, `Local file storage could not ${action} a file`);
    return new UnavailableError('File storage is unavailable');
  }
}
