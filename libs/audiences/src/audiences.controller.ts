import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  ErrorBody,
  IdParam,
  mapPage,
  PageQuery,
  RequireWriter,
  type Principal,
  ERROR_EXAMPLE_TX,
} from '@app/core';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AUDIENCE_BODY_LIMITS } from './audience';
import { AudiencesService } from './audiences.service';
import {
  AudienceSizeResponse,
  AudienceTargetDto,
  CreateSegmentDto,
  SegmentPage,
  SegmentPathParams,
  SegmentResponse,
  toSegmentResponse,
  UpdateSegmentDto,
} from './dto/audience.dto';
import { SegmentsService } from './segments.service';

const BAD_AUDIENCE = {
  description: 'A malformed audience, keyed by the path of the bad node',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'INVALID_INPUT',
    context: { 'audience.all.2.gte': 'must be a number or a text (ISO dates order as text)' },
  },
};
const NOT_FOUND = {
  description: 'Unknown pass or segment, or one of another workspace',
  type: ErrorBody,
};

/** Named audiences of a pass. */
@ApiTags('Audiences')
@Controller('wallet-pass/:id/segments')
@Authenticated()
@BodyLimits(AUDIENCE_BODY_LIMITS)
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({ summary: 'Create a segment (a named audience of the pass)' })
  @ApiCreatedResponse({ type: SegmentResponse })
  @ApiBadRequestResponse(BAD_AUDIENCE)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse({ description: 'The name is taken for this pass', type: ErrorBody })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: CreateSegmentDto,
  ): Promise<SegmentResponse> {
    return toSegmentResponse(await this.segments.create(workspaceId, principal.userId, id, body));
  }

  @Get()
  @ApiOperation({ summary: "A pass's segments, newest first" })
  @ApiOkResponse({ type: SegmentPage })
  @ApiNotFoundResponse(NOT_FOUND)
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: PageQuery,
  ): Promise<SegmentPage> {
    return mapPage(await this.segments.list(workspaceId, id, query), toSegmentResponse);
  }

  @Get(':segmentId')
  @ApiOperation({ summary: 'One segment' })
  @ApiOkResponse({ type: SegmentResponse })
  @ApiNotFoundResponse(NOT_FOUND)
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, segmentId }: SegmentPathParams,
  ): Promise<SegmentResponse> {
    return toSegmentResponse(await this.segments.get(workspaceId, id, segmentId));
  }

  @Patch(':segmentId')
  @RequireWriter()
  @ApiOperation({ summary: 'Rename a segment or change its audience' })
  @ApiOkResponse({ type: SegmentResponse })
  @ApiBadRequestResponse(BAD_AUDIENCE)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse({ description: 'The name is taken for this pass', type: ErrorBody })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, segmentId }: SegmentPathParams,
    @Body() body: UpdateSegmentDto,
  ): Promise<SegmentResponse> {
    return toSegmentResponse(
      await this.segments.update(workspaceId, principal.userId, id, segmentId, body),
    );
  }

  @Delete(':segmentId')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({
    summary: 'Delete a segment (not while a Draft or Scheduled notification uses it)',
  })
  @ApiNoContentResponse()
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse({
    description: 'A Draft or Scheduled notification uses the segment',
    type: ErrorBody,
  })
  async remove(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, segmentId }: SegmentPathParams,
  ): Promise<void> {
    await this.segments.remove(workspaceId, id, segmentId);
  }
}

/** The size of an audience before anything is sent to it. */
@ApiTags('Audiences')
@Controller('wallet-pass/:id/audience')
@Authenticated()
@BodyLimits(AUDIENCE_BODY_LIMITS)
export class AudienceController {
  constructor(private readonly audiences: AudiencesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Count an audience or a segment',
    description:
      'What a notification to it would reach now: holders matched, and the WalletA devices and ' +
      'WalletB objects of the Active ones. Nothing is created. Give `audience` or `segmentId`.',
  })
  @ApiOkResponse({ type: AudienceSizeResponse })
  @ApiBadRequestResponse(BAD_AUDIENCE)
  @ApiNotFoundResponse(NOT_FOUND)
  async size(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Body() body: AudienceTargetDto,
  ): Promise<AudienceSizeResponse> {
    return this.audiences.measure(workspaceId, id, body);
  }
}
