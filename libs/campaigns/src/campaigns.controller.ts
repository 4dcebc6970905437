import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  RequireWriter,
  ErrorBody,
  IdParam,
  mapPage,
  type Principal,
} from '@app/core';
import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { CampaignsService } from './campaigns.service';
import { CampaignPage, CampaignResponse, toCampaignResponse } from './dto/campaign.response';
import { CreateCampaignDto, UpdateCampaignDto } from './dto/create-campaign.dto';
import { ListCampaignsQuery } from './dto/list-campaigns.query';

/** A campaign at every maximum length, texts as `\uXXXX` escapes: about 105 KB of JSON. */
@ApiTags('Campaigns')
@Controller('promo-campaign')
@Authenticated()
@BodyLimits({ maxBytes: 256 * 1024 })
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Create a campaign',
    description:
      'Defaults: type `BoostedPost`, status `NotStarted`, not published. File fields take ' +
      '`{fileKey}` of an upload of this workspace; a CSV in videoPerformanceFileInfo or ' +
      'campaignDataFileInfo is read into video-performance records.',
  })
  @ApiCreatedResponse({ type: CampaignResponse })
  @ApiBadRequestResponse({
    description: 'Invalid field, or a bad CSV line (context key `<field>.line <n>.<column>`)',
    type: ErrorBody,
  })
  @ApiNotFoundResponse({ description: 'Unknown fileKey (context.id)', type: ErrorBody })
  @ApiUnsupportedMediaTypeResponse({
    description: 'Not an image / not a CSV file',
    type: ErrorBody,
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateCampaignDto,
  ): Promise<CampaignResponse> {
    return toCampaignResponse(await this.campaigns.create(workspaceId, principal.userId, body));
  }

  @Get()
  @ApiOperation({
    summary: 'Search campaigns, newest first',
    description: 'Branded users get published campaigns only.',
  })
  @ApiOkResponse({ type: CampaignPage })
  @ApiBadRequestResponse({ type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListCampaignsQuery,
  ): Promise<CampaignPage> {
    return mapPage(await this.campaigns.list(workspaceId, principal, query), toCampaignResponse);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One campaign',
    description: 'Unpublished ones are 404 for branded users.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiNotFoundResponse({ type: ErrorBody })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
  ): Promise<CampaignResponse> {
    return toCampaignResponse(await this.campaigns.get(workspaceId, principal, id));
  }

  @Patch(':id')
  @RequireWriter()
  @ApiOperation({
    summary: 'Update a campaign',
    description:
      'Any subset of the create fields; `null` clears a nullable one. Status moves: ' +
      'NotStarted→Prepping|InProgress|Canceled, Prepping→InProgress|Canceled, ' +
      'InProgress→Paused|Completed|Canceled, Paused→InProgress|Canceled; Completed and ' +
      'Canceled are final. Setting a CSV file field (again) replaces the records read from ' +
      'files; any failure changes nothing.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ description: 'Unknown campaign or fileKey (context.id)', type: ErrorBody })
  @ApiConflictResponse({
    description: 'A status move that is not allowed (context: status, requested)',
    type: ErrorBody,
  })
  @ApiUnsupportedMediaTypeResponse({
    description: 'Not an image / not a CSV file',
    type: ErrorBody,
  })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: UpdateCampaignDto,
  ): Promise<CampaignResponse> {
    return toCampaignResponse(await this.campaigns.update(workspaceId, principal.userId, id, body));
  }
}
