import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  RequireWriter,
  ErrorBody,
  IdParam,
  mapPage,
  PageQuery,
  type Principal,
} from '@app/core';
import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { toCampaignDataResponse } from './dto/campaign.response';
import { VideoPerformanceArrayPipe } from './dto/video-performance-array.pipe';
import {
  MAX_IMPORT_RECORDS,
  VideoPerformanceImportResponse,
  VideoPerformanceInputDto,
  VideoPerformancePage,
  toVideoPerformanceResponse,
} from './dto/video-performance.dto';
import { VideoPerformanceService } from './video-performance.service';

@ApiTags('Campaigns')
@Controller('promo-campaign/:id/video-performance')
@Authenticated()
export class VideoPerformanceController {
  constructor(private readonly videoPerformance: VideoPerformanceService) {}

  @Get()
  @ApiOperation({
    summary: "A campaign's video-performance records, newest first",
    description: 'Bearer token or API key. Unpublished campaigns are 404 for branded users.',
  })
  @ApiOkResponse({ type: VideoPerformancePage })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Query() query: PageQuery,
  ): Promise<VideoPerformancePage> {
    const page = await this.videoPerformance.list(workspaceId, principal, id, query);
    return mapPage(page, toVideoPerformanceResponse);
  }

  @Post()
  @RequireWriter()
  // 1,000 records at every maximum (handles as `\uXXXX` escapes, read-only fields echoed back):
  // about 4.1 MB and 18,000 values.
  @BodyLimits({ maxBytes: 6 * 1024 * 1024, maxItems: MAX_IMPORT_RECORDS, maxValues: 20_000 })
  @ApiOperation({
    summary: 'Add video-performance records',
    description:
      'A JSON array of 1 to 1000 records, added all or none (`source = api`); the campaign ' +
      'totals are recomputed in the same transaction. For a CSV file, upload it and set the ' +
      "campaign's videoPerformanceFileInfo instead.",
  })
  @ApiBody({ type: [VideoPerformanceInputDto] })
  @ApiCreatedResponse({ type: VideoPerformanceImportResponse })
  @ApiBadRequestResponse({
    description: 'Not an array of 1–1000 records, or a bad record (context key `[3].views`)',
    type: ErrorBody,
  })
  @ApiNotFoundResponse({ type: ErrorBody })
  async add(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body(VideoPerformanceArrayPipe) records: VideoPerformanceInputDto[],
  ): Promise<VideoPerformanceImportResponse> {
    const result = await this.videoPerformance.add(workspaceId, principal.userId, id, records);
    return { imported: result.imported, campaignData: toCampaignDataResponse(result.data) };
  }
}
