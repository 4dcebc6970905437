import { APP_CONFIG, type AppConfig } from '@app/core';
import { Module } from '@nestjs/common';
import { MulterModule, type MulterModuleOptions } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { memoryStorage } from 'multer';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { STORAGE_PROVIDERS } from './storage/storage.providers';
import { STORAGE_DRIVER } from './storage/storage-driver';
import { Upload } from './upload.entity';
import { UploadsController } from './uploads.controller';
import { UploadsService } from './uploads.service';

/**
 * Multipart uploads: kept in memory (at most UPLOAD_MAX_BYTES), one file and a few fields.
 * Every module with a multipart route registers these, so its 413 is the uploads' one.
 */
export function multerOptions(config: AppConfig): MulterModuleOptions {
  return {
    storage: memoryStorage(),
    defParamCharset: 'utf8',
    limits: { fileSize: config.upload.maxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 5 },
  };
}

/** File uploads, the storage driver, and signed downloads of the local driver's files. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Upload]),
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: multerOptions }),
  ],
  controllers: [UploadsController, FilesController],
  providers: [...STORAGE_PROVIDERS, UploadsService, FilesService],
  exports: [UploadsService, STORAGE_DRIVER],
})
export class UploadsModule {}
