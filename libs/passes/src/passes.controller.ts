import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  RequireWriter,
  ErrorBody,
  IdParam,
  mapPage,
  QueryBoolean,
  type Principal,
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
  ApiQuery,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { CreatePassDto, UpdatePassDto } from './dto/create-pass.dto';
import { ListPassesQuery } from './dto/list-passes.query';
import { PassPage, PassResponse, toPassResponse, toPassSummary } from './dto/pass.response';
import { PassesService } from './passes.service';

class GetPassQuery {
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  includeAssets?: boolean;
}

/**
 * The largest pass a client can send (a boarding pass with all fourteen face fields, 20 back
 * fields of 10 links and 16 languages of localizations, every text at its maximum length,
 * written as `\uXXXX` escapes) is 6.8 MB of JSON and about 2,400 values; no array holds more
 * than 20 elements (docs/decisions.md, "Request bodies").
 */
@ApiTags('Passes')
@Controller('wallet-pass')
@Authenticated()
@BodyLimits({ maxBytes: 8 * 1024 * 1024, maxValues: 4_000 })
export class PassesController {
  constructor(private readonly passes: PassesService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Create a pass',
    description: '`passName` is unique in the workspace. Status defaults to `Draft`.',
  })
  @ApiCreatedResponse({ type: PassResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ description: 'Unknown account or upload', type: ErrorBody })
  @ApiConflictResponse({ description: 'passName or slug taken', type: ErrorBody })
  @ApiUnsupportedMediaTypeResponse({ description: 'An image is not PNG', type: ErrorBody })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreatePassDto,
  ): Promise<PassResponse> {
    return toPassResponse(await this.passes.create(workspaceId, principal.userId, body));
  }

  @Get()
  @ApiOperation({ summary: 'Search passes, newest first' })
  @ApiOkResponse({ type: PassPage })
  @ApiBadRequestResponse({ type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListPassesQuery,
  ): Promise<PassPage> {
    const page = await this.passes.list(workspaceId, query);
    return mapPage(page, (view) =>
      query.summary === true ? toPassSummary(view.pass) : toPassResponse(view),
    );
  }

  @Get(':id')
  @ApiOperation({ summary: 'One pass' })
  @ApiQuery({ name: 'includeAssets', required: false, type: Boolean })
  @ApiOkResponse({ type: PassResponse })
  @ApiNotFoundResponse({ type: ErrorBody })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: GetPassQuery,
  ): Promise<PassResponse> {
    return toPassResponse(await this.passes.get(workspaceId, id, query.includeAssets === true));
  }

  @Patch(':id')
  @RequireWriter()
  @ApiOperation({
    summary: 'Update a pass',
    description: 'Holders get the new pass content on their devices. Returns the updated pass.',
  })
  @ApiOkResponse({ type: PassResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({
    description: 'passName taken, or Published back to Draft',
    type: ErrorBody,
  })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: UpdatePassDto,
  ): Promise<PassResponse> {
    return toPassResponse(await this.passes.update(workspaceId, principal.userId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({ summary: 'Delete a pass', description: "Holders' copies become void." })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody })
  async remove(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
  ): Promise<void> {
    await this.passes.remove(workspaceId, principal.userId, id);
  }
}
