import { CurrentWorkspace } from '@app/auth';
import { Authenticated, ErrorBody, IdParam, ERROR_EXAMPLE_TX } from '@app/core';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { PassStatsQuery, PassStatsResponse } from './dto/pass-stats.dto';
import { PassStatsService } from './pass-stats.service';

/** Per-day statistics of a pass, for every role that reads passes. */
@ApiTags('Passes')
@Controller('wallet-pass/:id/stats')
@Authenticated()
export class PassStatsController {
  constructor(private readonly stats: PassStatsService) {}

  @Get()
  @ApiOperation({
    summary: "A pass's statistics per day",
    description:
      'Installs and uninstalls per wallet, short-link clicks and notification sends, one entry ' +
      'per UTC day from `from` to `to` (both included, at most 366 days; default the last 30 ' +
      'days ending today), zeros included, oldest first. Counted as things happen.',
  })
  @ApiOkResponse({ type: PassStatsResponse })
  @ApiBadRequestResponse({
    description: 'A malformed or impossible date, `from` after `to`, or more than 366 days',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'INVALID_INPUT',
      context: { from: 'must be a date YYYY-MM-DD' },
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
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: PassStatsQuery,
  ): Promise<PassStatsResponse> {
    return { days: await this.stats.daily(workspaceId, id, query) };
  }
}
