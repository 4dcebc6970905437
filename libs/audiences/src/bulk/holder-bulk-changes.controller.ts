import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  ErrorBody,
  IdParam,
  RequireWriter,
  type Principal,
  ERROR_EXAMPLE_TX,
} from '@app/core';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AUDIENCE_BODY_LIMITS } from '../audience';
import { AUDIENCE_EXAMPLE } from '../dto/audience.dto';
import { MAX_BULK_HOLDER_IDS } from './bulk-changes';
import {
  BulkChangePathParams,
  BulkChangeResponse,
  CreateBulkChangeDto,
  toBulkChangeResponse,
} from './bulk-change.dto';
import { HolderBulkChangesService } from './holder-bulk-changes.service';

/**
 * JSON body limits: the largest audience any route takes, or up to 1,000 holder ids, each id and
 * every text possibly sent as `\uXXXX` escapes: 1,000 ids of 64 characters (≈ 390 KB escaped)
 * plus every face field value at length (≈ 170 KB) and 50 attributes of 255 (≈ 80 KB) stay
 * under 1 MiB.
 */
const BULK_BODY_LIMITS = {
  maxBytes: Math.max(AUDIENCE_BODY_LIMITS.maxBytes, 1024 * 1024),
  maxItems: Math.max(AUDIENCE_BODY_LIMITS.maxItems, MAX_BULK_HOLDER_IDS),
  maxValues: AUDIENCE_BODY_LIMITS.maxValues + 1000,
};

/**
 * Changes of many holders at once: made here, worked through by the worker in
 * batches, read back to follow them. Writers only, like a holder's PATCH.
 */
@ApiTags('Holders')
@Controller('wallet-pass/:id/holders/bulk')
@Authenticated()
export class HolderBulkChangesController {
  constructor(private readonly bulkChanges: HolderBulkChangesService) {}

  @Post()
  @HttpCode(202)
  @RequireWriter()
  @BodyLimits(BULK_BODY_LIMITS)
  @ApiOperation({
    summary: 'Change many holders at once',
    description:
      'Whom: exactly one of `audience`, `segmentId` (its audience as it is when the change ' +
      `starts) or \`holderIds\` (at most ${MAX_BULK_HOLDER_IDS}). What: any of \`set\` ` +
      '(`fieldValues`, `attributes`, `barcodeText`, merged as a PATCH merges), `addTags`, ' +
      '`removeTags`, `increment`. Answered at once with the BulkChange (`Pending`); the worker ' +
      'changes each holder exactly as a PATCH would (pushed to its devices, WalletB object ' +
      'patched, `changeMessage` shown, `holder.updated` sent), in batches, and a killed worker ' +
      'changes no holder twice. Voided holders, and holders whose value to increment is not a ' +
      'number, are left alone and counted in `skipped`. Follow it with GET.',
  })
  @ApiBody({
    type: CreateBulkChangeDto,
    examples: {
      increment: {
        summary: 'Add 50 points to Gold members in Zurich',
        value: { audience: AUDIENCE_EXAMPLE, increment: { points: 50 } },
      },
      segment: {
        summary: "Tag a segment's holders and change their tier",
        value: {
          segmentId: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b',
          set: { fieldValues: { tier: 'Gold' }, attributes: { tier: 'gold' } },
          addTags: ['gold'],
          removeTags: ['silver'],
        },
      },
      holders: {
        summary: 'Chosen holders',
        value: {
          holderIds: ['019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b'],
          increment: { visits: 1 },
        },
      },
    },
  })
  @ApiAcceptedResponse({ type: BulkChangeResponse })
  @ApiBadRequestResponse({
    description: 'A malformed target or change, each problem keyed by its path; nothing written',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'INVALID_INPUT',
      context: {
        'set.fieldValues.tier': "is not a field of the pass; its face fields' keys are points",
        'increment.points': 'must be a finite number',
        'audience.all.2.gte': 'must be a number or a text (ISO dates order as text)',
      },
    },
  })
  @ApiNotFoundResponse({
    description: 'Unknown or deleted pass, a pass of another workspace, or an unknown segment',
    type: ErrorBody,
    examples: {
      pass: {
        summary: 'Unknown pass',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'NOT_FOUND',
          errorMessage: 'Pass not found',
          context: { id: 'x' },
        },
      },
      segment: {
        summary: 'Unknown segment',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'NOT_FOUND',
          errorMessage: 'Segment not found',
          context: { id: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b' },
        },
      },
    },
  })
  @ApiConflictResponse({
    description: 'A Draft pass (it has no holders)',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'CONFLICT',
      errorMessage: 'A Draft pass has no holders; publish it first',
      context: { status: 'Draft' },
    },
  })
  @ApiPayloadTooLargeResponse({
    description: 'A JSON body over 1 MiB',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'PAYLOAD_TOO_LARGE',
      errorMessage: `Request body is larger than ${BULK_BODY_LIMITS.maxBytes} bytes`,
      context: { limitBytes: BULK_BODY_LIMITS.maxBytes },
    },
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: CreateBulkChangeDto,
  ): Promise<BulkChangeResponse> {
    return toBulkChangeResponse(
      await this.bulkChanges.create(workspaceId, principal.userId, id, body),
    );
  }

  @Get(':bulkId')
  @ApiOperation({
    summary: 'One bulk change',
    description: 'Its status and counts so far; `finishedTime` once Done or Failed.',
  })
  @ApiOkResponse({ type: BulkChangeResponse })
  @ApiNotFoundResponse({
    description: 'Unknown bulk change, or one of another pass or workspace',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'NOT_FOUND',
      errorMessage: 'Bulk change not found',
      context: { id: '019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b' },
    },
  })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, bulkId }: BulkChangePathParams,
  ): Promise<BulkChangeResponse> {
    return toBulkChangeResponse(await this.bulkChanges.get(workspaceId, id, bulkId));
  }
}
