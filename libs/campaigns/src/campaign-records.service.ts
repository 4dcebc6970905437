import { paginate, stampCreated, stampUpdated, type Page, type PageQuery } from '@app/core';
import { UploadsService, type Upload } from '@app/uploads';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { buffer } from 'node:stream/consumers';
import { EntityManager, In, Repository } from 'typeorm';
import type { CampaignDataInputDto } from './dto/create-campaign.dto';
import type { VideoPerformanceInputDto } from './dto/video-performance.dto';
import {
  CAMPAIGN_DATA_NOTES,
  CAMPAIGN_TOTALS,
  CampaignData,
  zeroTotals,
  type CampaignTotals,
} from './entities/campaign-data.entity';
import type { Campaign } from './entities/campaign.entity';
import {
  creatorKey,
  VideoPerformance,
  type RecordSource,
} from './entities/video-performance.entity';
import { readVideoPerformanceCsv } from './video-performance-csv';

/** Rows per INSERT statement: well below SQLite's and MySQL's limits on bound values. */
const INSERT_CHUNK = 200;

/** SQL of one total over the records (`platform` given: of that platform only). */
function sumOf(column: string, platform?: 'socialA' | 'socialB'): string {
  const value =
    platform === undefined
      ? `record.${column}`
      : `CASE WHEN record.platform = :${platform} THEN record.${column} ELSE 0 END`;
  return `COALESCE(SUM(${value}), 0)`;
}

const TOTAL_SQL: Record<keyof CampaignTotals, string> = {
  totalViews: sumOf('views'),
  // Campaign records carry no clicks, and campaigns have no short links to count them.
  totalClicks: '0',
  totalLikes: sumOf('likes'),
  totalCreators: 'COUNT(DISTINCT record.creator_key)',
  totalComments: sumOf('comments'),
  totalShares: sumOf('shares'),
  totalVideos: 'COUNT(*)',
  socialAViews: sumOf('views', 'socialA'),
  socialALikes: sumOf('likes', 'socialA'),
  socialAShares: sumOf('shares', 'socialA'),
  socialAComments: sumOf('comments', 'socialA'),
  socialBViews: sumOf('views', 'socialB'),
  socialBLikes: sumOf('likes', 'socialB'),
  socialBShares: sumOf('shares', 'socialB'),
  socialBComments: sumOf('comments', 'socialB'),
};

/**
 * A campaign's video-performance records and the CampaignData derived from them. Writes take
 * the caller's transaction (`manager`), so records and totals change together or not at all.
 */
@Injectable()
export class CampaignRecordsService {
  constructor(
    @InjectRepository(CampaignData) private readonly data: Repository<CampaignData>,
    @InjectRepository(VideoPerformance) private readonly records: Repository<VideoPerformance>,
    private readonly uploads: UploadsService,
  ) {}

  /** The records of an uploaded CSV file; `field` names the file in error keys. */
  async readFile(upload: Upload, field: string): Promise<VideoPerformanceInputDto[]> {
    const { stream } = await this.uploads.open(upload);
    return readVideoPerformanceCsv(await buffer(stream), field);
  }

  /** The CampaignData row of a new campaign: zeros, and the notes given. */
  async createData(
    manager: EntityManager,
    campaign: Campaign,
    notes: CampaignDataInputDto | undefined,
    actorId: string,
  ): Promise<CampaignData> {
    const data = manager.create(CampaignData, {
      workspaceId: campaign.workspaceId,
      campaignId: campaign.id,
      ...zeroTotals(),
      assetFolderLink: null,
      rec1: null,
      rec2: null,
      rec3: null,
      rec4: null,
    });
    applyNotes(data, notes);
    stampCreated(data, actorId);
    await manager.insert(CampaignData, data);
    return data;
  }

  /** Adds records posted through the API (`source = api`). */
  add(
    manager: EntityManager,
    campaign: Campaign,
    inputs: VideoPerformanceInputDto[],
    actorId: string,
  ): Promise<void> {
    return this.insert(manager, campaign, inputs, 'api', actorId);
  }

  /** Replaces the records read from files (`source = file`) with `inputs`; API records stay. */
  async replaceFileRecords(
    manager: EntityManager,
    campaign: Campaign,
    inputs: VideoPerformanceInputDto[],
    actorId: string,
  ): Promise<void> {
    await manager.delete(VideoPerformance, {
      workspaceId: campaign.workspaceId,
      campaignId: campaign.id,
      source: 'file',
    });
    await this.insert(manager, campaign, inputs, 'file', actorId);
  }

  /**
   * Writes the notes given and, with `recount`, totals recomputed from ALL the campaign's
   * records as the transaction sees them. Returns the row as stored.
   */
  async refreshData(
    manager: EntityManager,
    campaign: Campaign,
    actorId: string,
    change: { notes?: CampaignDataInputDto; recount: boolean },
  ): Promise<CampaignData> {
    const data = await manager.findOneByOrFail(CampaignData, {
      workspaceId: campaign.workspaceId,
      campaignId: campaign.id,
    });
    if (change.notes === undefined && !change.recount) return data;
    if (change.recount) Object.assign(data, await this.totals(manager, campaign));
    applyNotes(data, change.notes);
    stampUpdated(data, actorId);
    const { id, ...changes } = data;
    await manager.update(CampaignData, { id, workspaceId: campaign.workspaceId }, changes);
    return data;
  }

  /** CampaignData of the campaigns, by campaign id. */
  async findData(workspaceId: string, campaignIds: string[]): Promise<Map<string, CampaignData>> {
    if (campaignIds.length === 0) return new Map();
    const rows = await this.data.findBy({ workspaceId, campaignId: In(campaignIds) });
    return new Map(rows.map((row) => [row.campaignId, row]));
  }

  /** The campaign's records, newest first. */
  page(workspaceId: string, campaignId: string, page: PageQuery): Promise<Page<VideoPerformance>> {
    const query = this.records
      .createQueryBuilder('record')
      .where('record.campaign_id = :campaignId', { campaignId })
      .andWhere('record.workspace_id = :workspaceId', { workspaceId });
    return paginate(query, page);
  }

  private async totals(manager: EntityManager, campaign: Campaign): Promise<CampaignTotals> {
    const query = manager
      .createQueryBuilder()
      .from(VideoPerformance, 'record')
      .where('record.campaign_id = :campaignId', { campaignId: campaign.id })
      .andWhere('record.workspace_id = :workspaceId', { workspaceId: campaign.workspaceId })
      .setParameters({ socialA: 'SocialA', socialB: 'SocialB' });
    for (const name of CAMPAIGN_TOTALS) query.addSelect(TOTAL_SQL[name], name);
    const row = await query.getRawOne<Record<string, string | number | null>>();
    const totals = zeroTotals();
    // Aggregates come back as numbers (SQLite) or decimal strings (MySQL).
    for (const name of CAMPAIGN_TOTALS) totals[name] = Number(row?.[name] ?? 0);
    return totals;
  }

  private async insert(
    manager: EntityManager,
    campaign: Campaign,
    inputs: VideoPerformanceInputDto[],
    source: RecordSource,
    actorId: string,
  ): Promise<void> {
    const rows = inputs.map((input) =>
      stampCreated(
        manager.create(VideoPerformance, {
          workspaceId: campaign.workspaceId,
          campaignId: campaign.id,
          source,
          platform: input.platform,
          videoURL: input.videoURL,
          creatorHandle: input.creatorHandle,
          creatorKey: creatorKey(input.creatorHandle),
          views: input.views ?? 0,
          likes: input.likes ?? 0,
          shares: input.shares ?? 0,
          comments: input.comments ?? 0,
          saves: input.saves ?? 0,
          datePosted: input.datePosted ?? null,
        }),
        actorId,
      ),
    );
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      await manager.insert(VideoPerformance, rows.slice(start, start + INSERT_CHUNK));
    }
  }
}

/** Copies the notes that were sent (`null` clears one) onto the row. */
function applyNotes(data: CampaignData, notes: CampaignDataInputDto | undefined): void {
  if (notes === undefined) return;
  for (const name of CAMPAIGN_DATA_NOTES) {
    const value = notes[name];
    if (value !== undefined) data[name] = value;
  }
}
