import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  ErrorBody,
  IdParam,
  mapPage,
  PageQuery,
  type Principal,
  ERROR_EXAMPLE_TX,
} from '@app/core';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook-input.dto';
import {
  CreatedWebhookResponse,
  toWebhookDeliveryResponse,
  toWebhookResponse,
  WebhookDeliveryPage,
  WebhookPage,
  WebhookResponse,
} from './dto/webhook.response';
import { WEBHOOK_EVENT_TYPES } from './webhook-events';
import { MAX_ENDPOINTS_PER_WORKSPACE, WebhooksService } from './webhooks.service';

const NOT_FOUND = {
  description: 'Unknown webhook, or one of another workspace',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'NOT_FOUND',
    errorMessage: 'Webhook not found',
    context: { id: '019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b' },
  },
};
const INVALID = {
  description:
    'A bad field: an unknown event type, a URL that is not https:// or whose host resolves to ' +
    'a loopback, private, link-local or metadata address',
  type: ErrorBody,
  examples: {
    url: {
      summary: 'A private address',
      value: {
        ...ERROR_EXAMPLE_TX,
        errorCode: 'INVALID_INPUT',
        context: { url: 'crm.internal.example resolves to 10.0.4.2, a private address' },
      },
    },
    events: {
      summary: 'An unknown event type',
      value: {
        ...ERROR_EXAMPLE_TX,
        errorCode: 'INVALID_INPUT',
        context: { events: `each value must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` },
      },
    },
  },
};
const CREATE_EXAMPLE = {
  url: 'https://crm.brand.example/hooks/wallet',
  events: ['holder.created', 'holder.updated', 'pass.installed'],
  description: 'CRM sync',
};

/**
 * Webhooks of the workspace: owners, admins and members manage them; branded
 * users, who only read the brand's content, get a 403 on every route.
 */
@ApiTags('Webhooks')
@Controller('webhooks')
@Authenticated({ roles: ['owner', 'admin', 'member'] })
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'Events are POSTed to `url` signed as Standard Webhooks says (`webhook-id`, ' +
      '`webhook-timestamp`, `webhook-signature`), body `{id, type, timestamp, workspaceId, ' +
      'data}`. The answer carries the signing `secret` this once. At most ' +
      `${MAX_ENDPOINTS_PER_WORKSPACE} webhooks per workspace.`,
  })
  @ApiBody({ type: CreateWebhookDto, examples: { webhook: { value: CREATE_EXAMPLE } } })
  @ApiCreatedResponse({ type: CreatedWebhookResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiConflictResponse({
    description: `The workspace has ${MAX_ENDPOINTS_PER_WORKSPACE} webhooks already`,
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'CONFLICT',
      errorMessage: `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhooks; delete one first`,
      context: { limit: MAX_ENDPOINTS_PER_WORKSPACE },
    },
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookDto,
  ): Promise<CreatedWebhookResponse> {
    const { endpoint, secret } = await this.webhooks.create(workspaceId, principal.userId, body);
    return { ...toWebhookResponse(endpoint), secret };
  }

  @Get()
  @ApiOperation({ summary: "The workspace's webhooks, newest first (never their secrets)" })
  @ApiOkResponse({ type: WebhookPage })
  @ApiBadRequestResponse({ description: 'A bad limit or cursor', type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: PageQuery,
  ): Promise<WebhookPage> {
    return mapPage(await this.webhooks.list(workspaceId, query), toWebhookResponse);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook (never its secret)' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.get(workspaceId, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a webhook',
    description:
      'Any subset of `url`, `events`, `description`, `enabled`. A disabled webhook gets no ' +
      'new events; its pending deliveries wait and go out once it is enabled again.',
  })
  @ApiBody({ type: UpdateWebhookDto, examples: { disable: { value: { enabled: false } } } })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiNotFoundResponse(NOT_FOUND)
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.update(workspaceId, principal.userId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a webhook',
    description: 'Its deliveries go with it, pending ones included: nothing more is sent.',
  })
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  async remove(@CurrentWorkspace() workspaceId: string, @Param() { id }: IdParam): Promise<void> {
    await this.webhooks.remove(workspaceId, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "A webhook's deliveries, newest first",
    description:
      'One per event: `Pending` (being tried, `nextAttemptTime` says when next), `Delivered` ' +
      '(a 2xx answer) or `Failed` (no 2xx within 24 h of retries).',
  })
  @ApiOkResponse({ type: WebhookDeliveryPage })
  @ApiBadRequestResponse({ description: 'A bad limit or cursor', type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  async deliveries(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: PageQuery,
  ): Promise<WebhookDeliveryPage> {
    return mapPage(
      await this.webhooks.deliveries(workspaceId, id, query),
      toWebhookDeliveryResponse,
    );
  }
}
