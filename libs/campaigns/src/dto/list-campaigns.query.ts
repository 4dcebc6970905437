import { ID_PATTERN, PageQuery, QueryList, QueryId, QueryIdList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../campaign-status';
import { CAMPAIGN_TYPES, type CampaignType } from '../entities/campaign.entity';

export class ListCampaignsQuery extends PageQuery {
  @ApiPropertyOptional({ maxLength: 255, description: 'Case-insensitive search in name.' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  keyword?: string;

  @ApiPropertyOptional({
    enum: CAMPAIGN_STATUSES,
    isArray: true,
    description: 'Repeat the parameter or separate with commas.',
  })
  @IsOptional()
  @QueryList()
  @IsIn(CAMPAIGN_STATUSES, { each: true })
  status?: CampaignStatus[];

  @ApiPropertyOptional({ enum: CAMPAIGN_TYPES, isArray: true })
  @IsOptional()
  @QueryList()
  @IsIn(CAMPAIGN_TYPES, { each: true })
  type?: CampaignType[];

  @ApiPropertyOptional({ pattern: ID_PATTERN.source })
  @QueryId()
  id?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Repeat the parameter or separate with commas.',
  })
  @QueryIdList()
  ids?: string[];
}
