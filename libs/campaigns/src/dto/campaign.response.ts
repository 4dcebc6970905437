import { ApiProperty } from '@nestjs/swagger';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../campaign-status';
import { type CampaignData } from '../entities/campaign-data.entity';
import {
  CAMPAIGN_TYPES,
  type Campaign,
  type CampaignFileField,
  type CampaignType,
} from '../entities/campaign.entity';
import { PLATFORMS, type Platform } from '../entities/columns';

const ID_EXAMPLE = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b';

export class FileInfoResponse {
  @ApiProperty({ description: 'The uploadKey', example: '0193a5e1-0c2d-7e3f-8a4b-5c6d7e8f9a0b' })
  fileKey!: string;
  @ApiProperty({ example: 'after.png' }) fileName!: string;
  @ApiProperty({
    description: 'Signed download link, valid for one hour from the response',
    example: 'http://localhost:3000/files/campaign-assets/…?expires=1767225600&signature=…',
  })
  url!: string;
}

export class CampaignDataResponse {
  @ApiProperty({ example: '0193a5e0-7b7b-7000-8000-000000000001' }) id!: string;
  @ApiProperty({ example: ID_EXAMPLE }) campaignId!: string;
  @ApiProperty({ description: 'Sum of the records’ views', example: 250000 }) totalViews!: number;
  @ApiProperty({ description: 'Always 0: campaigns have no click source', example: 0 })
  totalClicks!: number;
  @ApiProperty({ example: 16600 }) totalLikes!: number;
  @ApiProperty({
    description: 'Distinct creatorHandle (case and a leading @ ignored)',
    example: 2,
  })
  totalCreators!: number;
  @ApiProperty({ example: 520 }) totalComments!: number;
  @ApiProperty({ example: 820 }) totalShares!: number;
  @ApiProperty({ description: 'Number of records', example: 2 }) totalVideos!: number;
  @ApiProperty({ example: 125000 }) socialAViews!: number;
  @ApiProperty({ example: 8300 }) socialALikes!: number;
  @ApiProperty({ example: 410 }) socialAShares!: number;
  @ApiProperty({ example: 260 }) socialAComments!: number;
  @ApiProperty({ example: 125000 }) socialBViews!: number;
  @ApiProperty({ example: 8300 }) socialBLikes!: number;
  @ApiProperty({ example: 410 }) socialBShares!: number;
  @ApiProperty({ example: 260 }) socialBComments!: number;
  @ApiProperty({ nullable: true, type: String, example: 'https://drive.example/f/spring' })
  assetFolderLink!: string | null;
  @ApiProperty({ nullable: true, type: String }) rec1!: string | null;
  @ApiProperty({ nullable: true, type: String }) rec2!: string | null;
  @ApiProperty({ nullable: true, type: String }) rec3!: string | null;
  @ApiProperty({ nullable: true, type: String }) rec4!: string | null;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class CampaignResponse {
  @ApiProperty({ example: ID_EXAMPLE }) id!: string;
  @ApiProperty({ example: 'Spring ride launch' }) name!: string;
  @ApiProperty({ enum: CAMPAIGN_TYPES, example: 'BoostedPost' }) type!: CampaignType;
  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'InProgress' }) status!: CampaignStatus;
  @ApiProperty({ format: 'date', nullable: true, type: String, example: '2026-03-01' })
  startDate!: string | null;
  @ApiProperty({ format: 'date', nullable: true, type: String, example: '2026-03-31' })
  endDate!: string | null;
  @ApiProperty({ description: 'Branded users see published campaigns only' })
  isPublished!: boolean;
  @ApiProperty({ enum: PLATFORMS, isArray: true, example: ['SocialA', 'SocialB'] })
  platforms!: Platform[];
  @ApiProperty({ nullable: true, type: Number, example: 500000 }) targetViews!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 1200 }) beforeViews!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 48000 }) afterViews!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 250000 }) deliveredViews!: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'https://brand.example/spring' })
  contentLink!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Two creators, one repost each.' })
  submissionNotes!: string | null;
  @ApiProperty({ type: CampaignDataResponse }) campaignData!: CampaignDataResponse;
  @ApiProperty({ type: FileInfoResponse, nullable: true })
  campaignDataFileInfo!: FileInfoResponse | null;
  @ApiProperty({ type: FileInfoResponse, nullable: true })
  videoPerformanceFileInfo!: FileInfoResponse | null;
  @ApiProperty({ type: FileInfoResponse, nullable: true }) beforeImage!: FileInfoResponse | null;
  @ApiProperty({ type: FileInfoResponse, nullable: true }) afterImage!: FileInfoResponse | null;
  @ApiProperty({ description: 'The workspace’s default account' }) accountId!: string;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class CampaignPage {
  @ApiProperty({ type: [CampaignResponse] }) items!: CampaignResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

/** A campaign with what its response needs besides its own row. */
export interface CampaignView {
  campaign: Campaign;
  data: CampaignData;
  /** FileInfo of each file field that is set, with a freshly signed URL. */
  files: Partial<Record<CampaignFileField, FileInfoResponse>>;
}

/** The audit columns every response carries, as the API writes them. */
export const times = (entity: {
  workspaceId: string;
  createdTime: Date;
  updatedTime: Date;
  createdBy: string | null;
  updatedBy: string | null;
}) => ({
  workspaceId: entity.workspaceId,
  createdTime: entity.createdTime.toISOString(),
  updatedTime: entity.updatedTime.toISOString(),
  createdBy: entity.createdBy,
  updatedBy: entity.updatedBy,
});

export function toCampaignDataResponse(data: CampaignData): CampaignDataResponse {
  return {
    id: data.id,
    campaignId: data.campaignId,
    totalViews: data.totalViews,
    totalClicks: data.totalClicks,
    totalLikes: data.totalLikes,
    totalCreators: data.totalCreators,
    totalComments: data.totalComments,
    totalShares: data.totalShares,
    totalVideos: data.totalVideos,
    socialAViews: data.socialAViews,
    socialALikes: data.socialALikes,
    socialAShares: data.socialAShares,
    socialAComments: data.socialAComments,
    socialBViews: data.socialBViews,
    socialBLikes: data.socialBLikes,
    socialBShares: data.socialBShares,
    socialBComments: data.socialBComments,
    assetFolderLink: data.assetFolderLink,
    rec1: data.rec1,
    rec2: data.rec2,
    rec3: data.rec3,
    rec4: data.rec4,
    ...times(data),
  };
}

export function toCampaignResponse({ campaign, data, files }: CampaignView): CampaignResponse {
  return {
    id: campaign.id,
    name: campaign.name,
    type: campaign.type,
    status: campaign.status,
    startDate: campaign.startDate,
    endDate: campaign.endDate,
    isPublished: campaign.isPublished,
    platforms: campaign.platforms,
    targetViews: campaign.targetViews,
    beforeViews: campaign.beforeViews,
    afterViews: campaign.afterViews,
    deliveredViews: campaign.deliveredViews,
    contentLink: campaign.contentLink,
    submissionNotes: campaign.submissionNotes,
    campaignData: toCampaignDataResponse(data),
    campaignDataFileInfo: files.campaignDataFileInfo ?? null,
    videoPerformanceFileInfo: files.videoPerformanceFileInfo ?? null,
    beforeImage: files.beforeImage ?? null,
    afterImage: files.afterImage ?? null,
    accountId: campaign.accountId,
    ...times(campaign),
  };
}
