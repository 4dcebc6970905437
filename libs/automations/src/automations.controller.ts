import { AUDIENCE_BODY_LIMITS } from '@app/audiences';
import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  ERROR_EXAMPLE_TX,
  ErrorBody,
  IdParam,
  mapPage,
  PageQuery,
  RequireWriter,
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
  ApiTags,
} from '@nestjs/swagger';
import { MAX_AUTOMATIONS_PER_PASS } from './automation-rules';
import { AutomationsService } from './automations.service';
import {
  AutomationPage,
  AutomationPathParams,
  AutomationResponse,
  CreateAutomationDto,
  toAutomationResponse,
  UpdateAutomationDto,
} from './dto/automation.dto';

const BAD_INPUT = {
  description:
    'A trigger, audience or action that is not valid, keyed by its path; nothing is stored',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'INVALID_INPUT',
    context: {
      'trigger.timeZone': 'must be an IANA time zone, e.g. Europe/Zurich',
      'actions.2.increment.tier':
        "is not a field of the pass; its face fields' keys are points; nor is it an attribute key (keys match ^[A-Za-z][A-Za-z0-9_]{0,63}$)",
    },
  },
};
const NOT_FOUND = {
  description: 'Unknown pass or automation, or one of another workspace',
  type: ErrorBody,
};
const NAME_TAKEN = { description: 'The name is taken for this pass', type: ErrorBody };

/** Rules of a pass that act on its holders. */
@ApiTags('Automations')
@Controller('wallet-pass/:id/automations')
@Authenticated()
@BodyLimits(AUDIENCE_BODY_LIMITS)
export class AutomationsController {
  constructor(private readonly automations: AutomationsService) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Create an automation of the pass',
    description: `A pass has at most ${MAX_AUTOMATIONS_PER_PASS} automations.`,
  })
  @ApiCreatedResponse({ type: AutomationResponse })
  @ApiBadRequestResponse(BAD_INPUT)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse({
    description: `The name is taken for this pass, or the pass has ${MAX_AUTOMATIONS_PER_PASS} automations already`,
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'CONFLICT',
      errorMessage: `A pass can have at most ${MAX_AUTOMATIONS_PER_PASS} automations`,
      context: { passId: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b', limit: MAX_AUTOMATIONS_PER_PASS },
    },
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: CreateAutomationDto,
  ): Promise<AutomationResponse> {
    return toAutomationResponse(
      await this.automations.create(workspaceId, principal.userId, id, body),
    );
  }

  @Get()
  @ApiOperation({ summary: "A pass's automations, newest first" })
  @ApiOkResponse({ type: AutomationPage })
  @ApiNotFoundResponse(NOT_FOUND)
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: PageQuery,
  ): Promise<AutomationPage> {
    return mapPage(await this.automations.list(workspaceId, id, query), toAutomationResponse);
  }

  @Get(':automationId')
  @ApiOperation({ summary: 'One automation' })
  @ApiOkResponse({ type: AutomationResponse })
  @ApiNotFoundResponse(NOT_FOUND)
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, automationId }: AutomationPathParams,
  ): Promise<AutomationResponse> {
    return toAutomationResponse(await this.automations.get(workspaceId, id, automationId));
  }

  @Patch(':automationId')
  @RequireWriter()
  @ApiOperation({ summary: 'Change any of an automation’s inputs' })
  @ApiOkResponse({ type: AutomationResponse })
  @ApiBadRequestResponse(BAD_INPUT)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(NAME_TAKEN)
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, automationId }: AutomationPathParams,
    @Body() body: UpdateAutomationDto,
  ): Promise<AutomationResponse> {
    return toAutomationResponse(
      await this.automations.update(workspaceId, principal.userId, id, automationId, body),
    );
  }

  @Delete(':automationId')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({ summary: 'Delete an automation' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse(NOT_FOUND)
  async remove(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, automationId }: AutomationPathParams,
  ): Promise<void> {
    await this.automations.remove(workspaceId, id, automationId);
  }
}
