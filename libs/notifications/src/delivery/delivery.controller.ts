import { CurrentWorkspace } from '@app/auth';
import { Authenticated, ErrorBody, IdParam } from '@app/core';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DeliveryService } from './delivery.service';
import { DeliveryQuery, DeliveryResponse, toDeliveryResponse } from './dto/delivery.dto';

/** Did the pass's latest version reach the phones, for every role that reads passes. */
@ApiTags('Passes')
@Controller('wallet-pass/:id/delivery')
@Authenticated()
export class DeliveryController {
  constructor(private readonly delivery: DeliveryService) {}

  @Get()
  @ApiOperation({
    summary: "Whether the pass's WalletA devices hold its current version",
    description:
      'Over the active WalletA registrations of the pass, shared and personal (`holderId`: one ' +
      "holder's): how many hold the current version (they registered at it, or fetched it " +
      'after a push) and how many are behind; `upToDate + behind = registered`.',
  })
  @ApiOkResponse({ type: DeliveryResponse })
  @ApiBadRequestResponse({ description: 'A malformed holderId', type: ErrorBody })
  @ApiNotFoundResponse({
    description: 'Unknown or deleted pass, a pass of another workspace, or a holder not of it',
    type: ErrorBody,
  })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() { holderId }: DeliveryQuery,
  ): Promise<DeliveryResponse> {
    return toDeliveryResponse(await this.delivery.summary(workspaceId, id, holderId));
  }
}
