import { AuthModule } from '@app/auth';
import { RateLimitModule } from '@app/core';
import { UploadsModule } from '@app/uploads';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Holder } from './entities/holder.entity';
import { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { GoogleSaveLinks } from './google-save-links';
import { HolderChanges } from './holder-changes';
import { LinkClick } from './links/link-click.entity';
import { LinkRedirectController } from './links/link-redirect.controller';
import { LinkRedirectService } from './links/link-redirect.service';
import { LinkStatsService } from './links/link-stats.service';
import { PassesController } from './passes.controller';
import { PassesService } from './passes.service';
import { ShortLinksService } from './short-links.service';

/**
 * Passes, their short links and the one path for changes holders see. The holder rows are
 * registered here too: {@link HolderChanges} writes them in the transaction of a change.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Pass, ShortLink, LinkClick, Holder]),
    AuthModule,
    UploadsModule,
    RateLimitModule,
  ],
  controllers: [PassesController, LinkRedirectController],
  providers: [
    PassesService,
    ShortLinksService,
    HolderChanges,
    GoogleSaveLinks,
    LinkRedirectService,
    LinkStatsService,
  ],
  exports: [
    PassesService,
    ShortLinksService,
    HolderChanges,
    GoogleSaveLinks,
    LinkStatsService,
    TypeOrmModule,
  ],
})
export class PassesModule {}
