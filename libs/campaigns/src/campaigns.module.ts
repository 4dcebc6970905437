import { AuthModule } from '@app/auth';
import { Upload, UploadsModule } from '@app/uploads';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignRecordsService } from './campaign-records.service';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';
import { CampaignData } from './entities/campaign-data.entity';
import { Campaign } from './entities/campaign.entity';
import { VideoPerformance } from './entities/video-performance.entity';
import { VideoPerformanceController } from './video-performance.controller';
import { VideoPerformanceService } from './video-performance.service';

/** Promotional video campaigns, their video-performance records and derived CampaignData. */
@Module({
  imports: [
    // Upload: read-only, to name the files of a page of campaigns in one query.
    TypeOrmModule.forFeature([Campaign, CampaignData, VideoPerformance, Upload]),
    AuthModule,
    UploadsModule,
  ],
  controllers: [CampaignsController, VideoPerformanceController],
  providers: [CampaignsService, CampaignRecordsService, VideoPerformanceService],
  exports: [CampaignsService],
})
export class CampaignsModule {}
