export * from './campaign-status';
export * from './campaigns.module';
export * from './campaigns.service';
export * from './dto/campaign.response';
export * from './dto/create-campaign.dto';
export * from './dto/video-performance.dto';
export * from './entities/campaign-data.entity';
export * from './entities/campaign.entity';
export * from './entities/video-performance.entity';

import { CampaignData } from './entities/campaign-data.entity';
import { Campaign } from './entities/campaign.entity';
import { VideoPerformance } from './entities/video-performance.entity';
export const CAMPAIGN_ENTITIES = [Campaign, CampaignData, VideoPerformance];
