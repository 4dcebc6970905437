import { NotFoundError } from '@app/core';
import type { Readable } from 'node:stream';

/** Injection token of the {@link StorageDriver} chosen by `STORAGE_DRIVER`. */
export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

/** A stored object opened for reading. */
export interface StoredObject {
  stream: Readable;
  size: number;
  contentType: string;
}

export interface SignedUrlOptions {
  /** Name a browser saves the file under (Content-Disposition). */
  fileName: string;
  contentType: string;
  /** Lifetime of the URL from now; zero or less gives a URL that has already expired. */
  expiresInSeconds: number;
}

/**
 * Where uploaded files live: local disk (default) or S3-compatible object storage. A key is
 * `<bucket>/<path>`; it never starts or ends with `/` and has no `.` or `..` segment.
 * Failures of the store itself are {@link UnavailableError}s (503), never plain errors.
 */
export interface StorageDriver {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Throws {@link StoredObjectNotFoundError} when nothing is stored under the key. */
  get(key: string): Promise<StoredObject>;
  /** Removes the object; a key with nothing stored is not an error. */
  delete(key: string): Promise<void>;
  /** A time-limited download URL that needs no other credentials. */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
}

export class StoredObjectNotFoundError extends NotFoundError {
  constructor(key: string) {
    super('File', key);
  }
}

const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** True for a key whose every segment is a plain name: no `..`, no absolute path, no dot file. */
export function isValidStorageKey(key: string): boolean {
  const segments = key.split('/');
  return segments.length >= 2 && segments.every((segment) => KEY_SEGMENT.test(segment));
}

/** `<bucket>/<workspaceId>/<uploadId>/<fileName>`: the key of an uploaded file. */
export function uploadStorageKey(
  bucket: string,
  workspaceId: string,
  uploadId: string,
  fileName: string,
): string {
  return [bucket, workspaceId, uploadId, fileName].join('/');
}

/**
 * `<bucket>/<workspaceId>/<uploadId>.derived/<name>`: a file the service made from an upload (a
 * pass image at a smaller scale). Beside the upload's folder rather than in it, so no name a
 * client gives its file can clash with it; no upload id has a dot, so the folder is no upload's.
 * Whatever deletes an upload deletes this folder with it.
 */
export function derivedStorageKey(
  bucket: string,
  workspaceId: string,
  uploadId: string,
  name: string,
): string {
  return [bucket, workspaceId, `${uploadId}.derived`, name].join('/');
}

/**
 * Images and PDFs open in the browser (pass assets are shown in place); anything else is
 * downloaded. Names are sanitised to `[A-Za-z0-9._-]`, so no quoting is needed.
 */
export function contentDisposition(fileName: string, contentType: string): string {
  const inline = contentType.startsWith('image/') || contentType === 'application/pdf';
  return `${inline ? 'inline' : 'attachment'}; filename="${fileName.replace(/["\\\r\n]/g, '_')}"`;
}
