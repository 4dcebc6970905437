import { APP_CONFIG, type AppConfig } from '@app/core';
import type { Provider } from '@nestjs/common';
import { FileUrlSigner } from './file-url-signer';
import { LocalStorageDriver } from './local-storage.driver';
import { S3StorageDriver } from './s3-storage.driver';
import { STORAGE_DRIVER, type StorageDriver } from './storage-driver';

/** The signer of local download links, and the driver STORAGE_DRIVER names. */
export const STORAGE_PROVIDERS: Provider[] = [
  {
    provide: FileUrlSigner,
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) =>
      new FileUrlSigner(config.storage.signingSecret, config.publicBaseUrl),
  },
  {
    provide: STORAGE_DRIVER,
    inject: [APP_CONFIG, FileUrlSigner],
    useFactory: (config: AppConfig, signer: FileUrlSigner): StorageDriver =>
      config.storage.driver === 's3'
        ? new S3StorageDriver({ ...config.storage.s3, timeoutMs: config.storage.timeoutMs })
        : new LocalStorageDriver(config.storage.dir, signer),
  },
];
