import { BodyLimits, ID_PATTERN, LimitPerClientIp, Public, SkipRateLimit } from '@app/core';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { Request, Response } from 'express';
import { DeviceLogsService } from '../device-logs/device-logs.service';
import { sendPackage } from '../holder/send-package';
import { PassKitService } from './passkit.service';

const PATH_SEGMENT = /^[A-Za-z0-9._-]{1,255}$/;

class DevicePassParams {
  @Matches(PATH_SEGMENT) deviceLibraryIdentifier!: string;
  @Matches(PATH_SEGMENT) passTypeIdentifier!: string;
  @Matches(ID_PATTERN) @MaxLength(64) serialNumber!: string;
}

class DeviceParams {
  @Matches(PATH_SEGMENT) deviceLibraryIdentifier!: string;
  @Matches(PATH_SEGMENT) passTypeIdentifier!: string;
}

class PassParams {
  @Matches(PATH_SEGMENT) passTypeIdentifier!: string;
  @Matches(ID_PATTERN) @MaxLength(64) serialNumber!: string;
}

/**
 * APNs device tokens are hex (32 bytes today; Apple warns they may grow), and one is put in the
 * path of every push to the device: anything else is refused here rather than stored. At most
 * what the registration's column holds.
 */
const PUSH_TOKEN = /^[0-9A-Fa-f]{1,255}$/;

class PushTokenBody {
  @IsString()
  @Matches(PUSH_TOKEN, { message: 'must be 1 to 255 hexadecimal digits' })
  pushToken!: string;
}

class UpdatedQuery {
  @IsOptional() @IsString() @MaxLength(64) passesUpdatedSince?: string;
}

const clientIpOf = (request: Request): string => request.ip ?? 'unknown';

/** Apple's `{"logs": [...]}`: a device reports a few errors at a time, a few hundred bytes each. */
const MAX_LOG_ENTRIES = 20;

class LogBody {
  @IsArray() @ArrayMaxSize(MAX_LOG_ENTRIES) @IsString({ each: true }) logs!: string[];
}

/**
 * Apple's PassKit web service (`webServiceURL` = `{PUBLIC_BASE_URL}/passkit`), exactly as the
 * Wallet Passes documentation describes it. Devices authenticate with `ApplePass <token>`.
 * Not part of the public REST API, so left out of the OpenAPI document.
 *
 * Not under the API's per-IP limit: hundreds of phones share one address behind a venue's Wi-Fi
 * or carrier-grade NAT, and a device refused here misses updates for good. Refused credentials
 * are limited instead (`PassKitService`), and the log has a budget of its own.
 */
@ApiExcludeController()
@Controller('passkit/v1')
@Public()
@SkipRateLimit()
export class PassKitController {
  constructor(
    private readonly passKit: PassKitService,
    private readonly deviceLogs: DeviceLogsService,
  ) {}

  @Post('devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber')
  async register(
    @Param() params: DevicePassParams,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: PushTokenBody,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const outcome = await this.passKit.register(
      params.passTypeIdentifier,
      params.serialNumber,
      authorization,
      {
        libraryId: params.deviceLibraryIdentifier,
        pushToken: body.pushToken,
        clientIp: clientIpOf(request),
      },
    );
    response.status(outcome === 'created' ? 201 : 200).end();
  }

  @Get('devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier')
  async updated(
    @Param() params: DeviceParams,
    @Query() query: UpdatedQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const result = await this.passKit.updatedSince(
      params.deviceLibraryIdentifier,
      params.passTypeIdentifier,
      query.passesUpdatedSince,
      { clientIp: clientIpOf(request) },
    );
    if (result === null) response.status(204).end();
    else response.status(200).json(result);
  }

  @Delete('devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber')
  @HttpCode(200)
  async unregister(
    @Param() params: DevicePassParams,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: Request,
  ): Promise<void> {
    await this.passKit.unregister(params.passTypeIdentifier, params.serialNumber, authorization, {
      libraryId: params.deviceLibraryIdentifier,
      clientIp: clientIpOf(request),
    });
  }

  @Get('passes/:passTypeIdentifier/:serialNumber')
  async latest(
    @Param() params: PassParams,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { pkpass, delivered } = await this.passKit.latest(
      params.passTypeIdentifier,
      params.serialNumber,
      authorization,
      { clientIp: clientIpOf(request) },
    );
    sendPackage(request, response, pkpass, {
      fileName: `${params.serialNumber}.pkpass`,
      caching: 'device',
    });
    // A device's GET (not a HEAD) that ends with the version on the phone confirms it.
    if (request.method === 'GET' && (response.statusCode === 200 || response.statusCode === 304)) {
      delivered();
    }
  }

  /** Always a 200 for a valid body: what is kept, and what is not, is the service's concern. */
  @Post('log')
  @HttpCode(200)
  @LimitPerClientIp('passkit-log', 10)
  @BodyLimits({ maxBytes: 8 * 1024, maxItems: MAX_LOG_ENTRIES })
  async log(@Body() body: LogBody, @Req() request: Request): Promise<void> {
    await this.deviceLogs.receive(body.logs, clientIpOf(request));
  }
}
