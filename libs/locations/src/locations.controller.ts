import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import { Authenticated, RequireWriter, ErrorBody, mapPage, type Principal } from '@app/core';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
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
import { ListLocationsQuery } from './dto/list-locations.query';
import { LocationDto, LocationIdParam } from './dto/location.dto';
import { LocationPage, LocationResponse, toLocationResponse } from './dto/location.response';
import { LocationsService } from './locations.service';

const NOT_FOUND = {
  description: 'Unknown location, or `walletPass.id` is not a pass of this workspace',
  type: ErrorBody,
};
const CONFLICT = {
  description: 'The pass already has 10 enabled locations (Apple Wallet reads no more)',
  type: ErrorBody,
  example: {
    txId: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
    timestamp: '2026-01-31T12:00:00.000Z',
    errorCode: 'CONFLICT',
    errorMessage: 'A pass can have at most 10 enabled locations (Apple Wallet reads no more)',
    context: { 'walletPass.id': '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b', limit: 10 },
  },
};
const INVALID = {
  type: ErrorBody,
  example: {
    txId: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
    timestamp: '2026-01-31T12:00:00.000Z',
    errorCode: 'INVALID_INPUT',
    context: { name: 'must not be null', relevantText: 'must not be empty' },
  },
};

@ApiTags('Locations')
@Controller('wallet-pass-location')
@Authenticated()
export class LocationsController {
  constructor(private readonly locations: LocationsService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Create a location',
    description:
      'With `walletPass`, holders of that pass see `relevantText` near the location. A pass ' +
      'takes at most 10 enabled locations.',
  })
  @ApiCreatedResponse({ type: LocationResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(CONFLICT)
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: LocationDto,
  ): Promise<LocationResponse> {
    return toLocationResponse(await this.locations.create(workspaceId, principal.userId, body));
  }

  @Get()
  @ApiOperation({ summary: 'Search locations, newest first' })
  @ApiOkResponse({ type: LocationPage })
  @ApiBadRequestResponse({ type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListLocationsQuery,
  ): Promise<LocationPage> {
    return mapPage(await this.locations.list(workspaceId, query), toLocationResponse);
  }

  @Get(':locationId')
  @ApiOperation({ summary: 'One location' })
  @ApiOkResponse({ type: LocationResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { locationId }: LocationIdParam,
  ): Promise<LocationResponse> {
    return toLocationResponse(await this.locations.get(workspaceId, locationId));
  }

  @Put(':locationId')
  @RequireWriter()
  @ApiOperation({
    summary: 'Replace a location',
    description:
      'Same required fields as create; absent optional fields take their defaults (`enabled` ' +
      'true, no altitude, no pass). Holders of the old and the new pass get the change.',
  })
  @ApiOkResponse({ type: LocationResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(CONFLICT)
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { locationId }: LocationIdParam,
    @Body() body: LocationDto,
  ): Promise<LocationResponse> {
    return toLocationResponse(
      await this.locations.update(workspaceId, principal.userId, locationId, body),
    );
  }

  @Delete(':locationId')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({
    summary: 'Delete a location',
    description: 'Holders of its pass get the pass without it.',
  })
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  async remove(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { locationId }: LocationIdParam,
  ): Promise<void> {
    await this.locations.remove(workspaceId, principal.userId, locationId);
  }
}
