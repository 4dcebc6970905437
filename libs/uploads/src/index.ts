import { Upload } from './upload.entity';

export * from './content/content-type';
export * from './content/file-name';
export * from './content/pass-images';
export * from './content/png-header';
export * from './storage/storage-driver';
export * from './multipart-errors.interceptor';
export * from './upload.entity';
export * from './uploads.module';
export * from './uploads.service';

export const UPLOADS_ENTITIES = [Upload];
