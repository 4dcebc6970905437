import { AuthModule } from '@app/auth';
import { APP_CONFIG, RateLimitModule } from '@app/core';
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
    TypeOrmModule.forFeature([Pass, ShortLink, LinkClick, Holder, Segment]),
    // The holders' CSV import is multipart, with the uploads' limits.
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: multerOptions }),
    AuthModule,
    UploadsModule,
    RateLimitModule,
  ],
  controllers: [
    PassesController,
    HoldersController,
    SegmentsController,
    AudienceController,
    LinkRedirectController,
  ],
  providers: [
    PassesService,
    HoldersService,
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
    AudiencesService,
    SegmentsService,
    ShortLinksService,
    HolderChanges,
    GoogleSaveLinks,
    LinkStatsService,
    TypeOrmModule,
  ],
})
export class PassesModule {}
