import { CurrentWorkspace } from '@app/auth';
import { Authenticated, ErrorBody, IdParam, mapPage, ERROR_EXAMPLE_TX } from '@app/core';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DeviceLogsService } from './device-logs.service';
import { DeviceLogPage, ListDeviceLogsQuery, toDeviceLogResponse } from './dto/device-log.dto';

/** What devices reported about a pass, for every role that reads passes. */
@ApiTags('Passes')
@Controller('wallet-pass/:id/device-logs')
@Authenticated()
export class DeviceLogsController {
  constructor(private readonly deviceLogs: DeviceLogsService) {}

  @Get()
  @ApiOperation({
    summary: 'What WalletA devices reported about a pass, most recently seen first',
    description:
      "The messages Wallet on devices posted to the PassKit web service's log naming the " +
      "pass's serial number or one of its holders': a repeated message is one entry with a " +
      "`count`. Apple's log route takes no credentials: `verified` sets the messages posted " +
      "from an address that had just sent the serial number's token apart from the others, " +
      'which anyone who knows the serial number can post. At most ' +
      '`PASSKIT_DEVICE_LOGS_PER_PASS` (200) entries per pass (the least recently seen go), ' +
      'kept `RETENTION_DAYS` after they were last seen. Keyset pages: pass ' +
      'the `cursor` of a page to get the next.',
  })
  @ApiOkResponse({ type: DeviceLogPage })
  @ApiBadRequestResponse({
    description: 'A malformed pass id, holderId, limit or cursor',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'INVALID_INPUT',
      context: { holderId: 'must match ^[a-zA-Z0-9-_]+$' },
    },
  })
  @ApiNotFoundResponse({
    description: 'Unknown or deleted pass, or a pass of another workspace',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'NOT_FOUND',
      errorMessage: 'Pass not found',
      context: { id: 'x' },
    },
  })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: ListDeviceLogsQuery,
  ): Promise<DeviceLogPage> {
    return mapPage(await this.deviceLogs.list(workspaceId, id, query), toDeviceLogResponse);
  }
}
