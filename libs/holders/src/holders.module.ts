import { AuthModule } from '@app/auth';
import { APP_CONFIG, RateLimitModule } from '@app/core';
import { PassesModule } from '@app/passes';
import { multerOptions, UploadsModule } from '@app/uploads';
import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HolderBundle } from './bundles/holder-bundle.entity';
import { HolderBundlesController } from './bundles/holder-bundles.controller';
import { HolderBundlesService } from './bundles/holder-bundles.service';
import { HoldersController } from './holders.controller';
import { HoldersService } from './holders.service';

/**
 * Holders of a pass and their bundles. The list's segment filter is provided under
 * `HOLDER_SEGMENT_FILTER` by the global AudiencesModule, which every app imports with this one.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([HolderBundle]),
    // The holders' CSV import is multipart, with the uploads' limits.
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: multerOptions }),
    PassesModule,
    AuthModule,
    UploadsModule,
    RateLimitModule,
  ],
  controllers: [HolderBundlesController, HoldersController],
  providers: [HoldersService, HolderBundlesService],
  exports: [HoldersService, HolderBundlesService, TypeOrmModule],
})
export class HoldersModule {}
