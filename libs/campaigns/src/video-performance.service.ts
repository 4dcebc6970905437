import type { Page, PageQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CampaignRecordsService } from './campaign-records.service';
import { CampaignsService, type CampaignReader } from './campaigns.service';
import type { VideoPerformanceInputDto } from './dto/video-performance.dto';
import type { CampaignData } from './entities/campaign-data.entity';
import type { VideoPerformance } from './entities/video-performance.entity';

/** The video-performance records of a campaign, as the API lists and adds them. */
@Injectable()
export class VideoPerformanceService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignsService,
    private readonly records: CampaignRecordsService,
  ) {}

  /** Records of a campaign the reader may see (branded: published ones only), newest first. */
  async list(
    workspaceId: string,
    reader: CampaignReader,
    campaignId: string,
    page: PageQuery,
  ): Promise<Page<VideoPerformance>> {
    const campaign = await this.campaigns.getVisible(workspaceId, reader, campaignId);
    return this.records.page(workspaceId, campaign.id, page);
  }

  /**
   * Adds the records (`source = api`) and recomputes the campaign's totals in one
   * transaction: all of them or none.
   */
  async add(
    workspaceId: string,
    actorId: string,
    campaignId: string,
    inputs: VideoPerformanceInputDto[],
  ): Promise<{ imported: number; data: CampaignData }> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await this.campaigns.lockForWrite(manager, workspaceId, campaignId);
      await this.records.add(manager, campaign, inputs, actorId);
      const data = await this.records.refreshData(manager, campaign, actorId, { recount: true });
      return { imported: inputs.length, data };
    });
  }
}
