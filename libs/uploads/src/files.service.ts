import { ForbiddenError } from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { FileUrlSigner } from './storage/file-url-signer';
import { STORAGE_DRIVER, type StorageDriver, type StoredObject } from './storage/storage-driver';

export interface SignedDownload extends StoredObject {
  fileName: string;
  /** Seconds until the link expires: how long the answer may be cached. */
  maxAgeSeconds: number;
}

/** Serves the local driver's signed download links (`GET /files/{*key}`). */
@Injectable()
export class FilesService {
  constructor(
    private readonly signer: FileUrlSigner,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
  ) {}

  async openSigned(key: string, expires: unknown, signature: unknown): Promise<SignedDownload> {
    const check = this.signer.verify(key, expires, signature);
    if (!check.valid) {
      throw new ForbiddenError(
        check.reason === 'expired'
          ? 'The download link has expired'
          : 'The download link is not valid',
      );
    }
    const object = await this.storage.get(key);
    return {
      ...object,
      fileName: key.slice(key.lastIndexOf('/') + 1),
      maxAgeSeconds: check.remainingSeconds,
    };
  }
}
