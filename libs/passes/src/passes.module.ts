import { AuthModule } from '@app/auth';
import { APP_CONFIG, RateLimitModule, RetentionWorker } from '@app/core';
import { multerOptions, UploadsModule } from '@app/uploads';
import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AudienceController, SegmentsController } from './audiences/audiences.controller';
import { AudiencesService } from './audiences/audiences.service';
import { Segment } from './audiences/segment.entity';
import { SegmentsService } from './audiences/segments.service';
import { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { GoogleSaveLinks } from './google-save-links';
import {
  FINAL_BULK_CHANGE_STATUSES,
  HolderBulkChange,
} from './holders/bulk/holder-bulk-change.entity';
import { HolderBulkChangeWorker } from './holders/bulk/holder-bulk-change.worker';
import { HolderBulkChangesController } from './holders/bulk/holder-bulk-changes.controller';
import { HolderBulkChangesService } from './holders/bulk/holder-bulk-changes.service';
import { HolderBundle } from './holders/bundles/holder-bundle.entity';
import { HolderBundlesController } from './holders/bundles/holder-bundles.controller';
import { HolderBundlesService } from './holders/bundles/holder-bundles.service';
import { Holder } from './holders/holder.entity';
import { HoldersController } from './holders/holders.controller';
import { HoldersService } from './holders/holders.service';
import { LinkClick } from './links/link-click.entity';
import { LinkRedirectController } from './links/link-redirect.controller';
import { LinkRedirectService } from './links/link-redirect.service';
import { LinkStatsService } from './links/link-stats.service';
import { HolderChanges } from './holder-changes';
import { PassesController } from './passes.controller';
import { PassesService } from './passes.service';
import { ShortLinksService } from './short-links.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Pass,
      ShortLink,
      LinkClick,
      Holder,
      Segment,
      HolderBulkChange,
      HolderBundle,
    ]),
    // The holders' CSV import is multipart, with the uploads' limits.
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: multerOptions }),
    AuthModule,
    UploadsModule,
    RateLimitModule,
  ],
  controllers: [
    PassesController,
    HolderBulkChangesController,
    HolderBundlesController,
    HoldersController,
    SegmentsController,
    AudienceController,
    LinkRedirectController,
  ],
  providers: [
    PassesService,
    HoldersService,
    HolderBulkChangesService,
    HolderBulkChangeWorker,
    HolderBundlesService,
    AudiencesService,
    SegmentsService,
    ShortLinksService,
    HolderChanges,
    GoogleSaveLinks,
    LinkRedirectService,
    LinkStatsService,
  ],
  exports: [
    PassesService,
    HolderBundlesService,
    AudiencesService,
    SegmentsService,
    ShortLinksService,
    HolderChanges,
    GoogleSaveLinks,
    LinkStatsService,
    TypeOrmModule,
  ],
})
export class PassesModule {
  constructor(retention: RetentionWorker) {
    // The holders a finished bulk change worked through: read by nothing once it is Done or
    // Failed (its counts stay on the change). Notifications register their own snapshots.
    const finals = FINAL_BULK_CHANGE_STATUSES.map((status) => `'${status}'`).join(', ');
    retention.register({
      table: 'audience_member',
      key: ['snapshot_id', 'holder_id'],
      expired: ({ cutoff }) => ({
        where: `snapshot_id IN (SELECT id FROM holder_bulk_change WHERE status IN (${finals}) AND finished_time < ?)`,
        parameters: [cutoff],
      }),
    });
  }
}
