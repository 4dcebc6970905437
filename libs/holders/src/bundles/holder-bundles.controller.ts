import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  ErrorBody,
  IdParam,
  RequireWriter,
  type Principal,
  ERROR_EXAMPLE_TX,
} from '@app/core';
import { Body, Controller, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  CreateHolderBundleDto,
  HolderBundleResponse,
  MAX_BUNDLE_HOLDERS,
  MIN_BUNDLE_HOLDERS,
} from './dto/holder-bundle.dto';
import { HolderBundlesService } from './holder-bundles.service';

const FAMILY = [
  '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b',
  '019a2b3c-2223-7f60-8a1b-2c3d4e5f6a7b',
  '019a2b3c-2224-7f60-8a1b-2c3d4e5f6a7b',
];

/**
 * Several holders of a pass handed over in one tap: writers only, like creating
 * a holder, since it hands out the holders' passes.
 */
@ApiTags('Holders')
@Controller('wallet-pass/:id/holders/bundle')
@Authenticated()
export class HolderBundlesController {
  constructor(private readonly bundles: HolderBundlesService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Bundle holders: many passes, one tap',
    description:
      `${MIN_BUNDLE_HOLDERS} to ${MAX_BUNDLE_HOLDERS} different Active holders of the pass (a ` +
      "family's tickets) handed over together: `walletAUrl` downloads one `.pkpasses` bundle " +
      "(`application/vnd.apple.pkpasses`, a zip of each holder's signed `.pkpass`), " +
      '`googleSaveUrl` saves all their WalletB objects with one link, grouped, and `pageUrl` ' +
      'shows their passes with both buttons. The links are unguessable and need no credentials, ' +
      "like a holder's page; they last as long as the pass. A holder Voided later is left out " +
      'of all three.',
  })
  @ApiBody({
    type: CreateHolderBundleDto,
    examples: { family: { summary: "A family's three tickets", value: { holderIds: FAMILY } } },
  })
  @ApiCreatedResponse({ type: HolderBundleResponse })
  @ApiBadRequestResponse({
    description:
      'Fewer than 2 or more than 10 holders, a holder named twice, a holder of another pass or ' +
      'a Voided one, or a malformed pass id; nothing written',
    type: ErrorBody,
    examples: {
      size: {
        summary: 'One holder',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'INVALID_INPUT',
          context: { holderIds: 'must contain at least 2 elements' },
        },
      },
      otherPass: {
        summary: 'A holder of another pass',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'INVALID_INPUT',
          context: { holderIds: `${FAMILY[2]} (holderIds[2]) is a holder of another pass` },
        },
      },
    },
  })
  @ApiNotFoundResponse({
    description:
      'Unknown or deleted pass, or a pass of another workspace; a holder id of no holder of ' +
      'this workspace',
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
      holder: {
        summary: 'Unknown holder',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'NOT_FOUND',
          errorMessage: 'Holder not found',
          context: { id: FAMILY[1] },
        },
      },
    },
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: CreateHolderBundleDto,
  ): Promise<HolderBundleResponse> {
    return this.bundles.create(workspaceId, principal.userId, id, body.holderIds);
  }
}
