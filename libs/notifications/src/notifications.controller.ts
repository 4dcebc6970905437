import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  Authenticated,
  BodyLimits,
  RequireWriter,
  ErrorBody,
  IdParam,
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
import { AUDIENCE_BODY_LIMITS } from '@app/audiences';
import { ListNotificationsQuery } from './dto/list-notifications.query';
import {
  CreateNotificationDto,
  GetNotificationQuery,
  MAX_TARGETED_HOLDERS,
  UpdateNotificationDto,
} from './dto/notification.dto';
import {
  NotificationPage,
  NotificationResponse,
  NotificationStatsResponse,
  toNotificationResponse,
} from './dto/notification.response';
import { DeliveryService } from './delivery/delivery.service';
import type { Notification } from './entities/notification.entity';
import { NotificationStatsService } from './notification-stats.service';
import { NotificationsService } from './notifications.service';

const DELIVERY_DESCRIPTION =
  'WalletA: the message becomes a field of the pass (label: the pass notificationHeader) whose changeMessage shows it on the lock screen; every registered device is pushed. ' +
  "WalletB: the message is added to the pass on Google's side and shows on the back of the pass; Google lets 3 messages per pass in 24 hours notify holders, later ones are still added but without a notification. " +
  'Delivery moves Initializing → Processing → Finalizing → Published, or Failed / AppleFailedGoogleSuccess / AppleSuccessGoogleFailed (see failureReason). ' +
  'Scheduled notifications go out within seconds of scheduledTime. ' +
  'Whom it reaches: holderIds (chosen holders), audience or segmentId (the holders matched when it is sent: audienceSize), at most one of them; none: every holder and the shared pass.';

const BAD_TARGET = {
  description:
    'An invalid field; more than one of holderIds, audience and segmentId (keyed by each); an ' +
    'audience keyed by the path of its bad node; a segmentId that is no segment of the pass',
  type: ErrorBody,
  example: {
    txId: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
    timestamp: '2026-01-31T12:00:00.000Z',
    errorCode: 'INVALID_INPUT',
    context: {
      audience: 'give only one of holderIds, audience, segmentId',
      segmentId: 'give only one of holderIds, audience, segmentId',
    },
  },
};

/**
 * Room for `holderIds` at its longest (1,000 ids), or for the largest audience any route takes,
 * besides the other fields.
 */
const TARGETED_BODY_LIMITS = {
  maxBytes: AUDIENCE_BODY_LIMITS.maxBytes,
  maxItems: Math.max(AUDIENCE_BODY_LIMITS.maxItems, MAX_TARGETED_HOLDERS),
  maxValues: Math.max(AUDIENCE_BODY_LIMITS.maxValues, MAX_TARGETED_HOLDERS) + 100,
};

@ApiTags('Notifications')
@Controller('wallet-pass/notifications')
@Authenticated()
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly stats: NotificationStatsService,
    private readonly delivery: DeliveryService,
  ) {}

  @Post()
  @RequireWriter()
  @BodyLimits(TARGETED_BODY_LIMITS)
  @ApiOperation({
    summary: 'Create a notification',
    description: `No status sends it now; \`Draft\` keeps it; \`Scheduled\` (with scheduledTime) sends it then. ${DELIVERY_DESCRIPTION}`,
  })
  @ApiCreatedResponse({ type: NotificationResponse })
  @ApiBadRequestResponse(BAD_TARGET)
  @ApiNotFoundResponse({ description: 'Unknown pass', type: ErrorBody })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateNotificationDto,
  ): Promise<NotificationResponse> {
    return this.respond(await this.notifications.create(workspaceId, principal.userId, body));
  }

  /*
   * The passes controller's `GET /wallet-pass/:id` would take this path (id "notifications")
   * if it were registered first: AppModule imports NotificationsModule before PassesModule for
   * that reason, and test/notifications-list.e2e-spec.ts fails if the order changes.
   */
  @Get()
  @ApiOperation({
    summary: 'List notifications, newest first',
    description:
      'Notifications of the workspace, newest first, paged with `cursor` (from the previous page) ' +
      'and `limit`. Filters combine with AND: `passSerialNumber` (one pass), `status` (any of ' +
      'several: `status=Draft&status=Scheduled` or `status=Draft,Scheduled`) and `keyword` ' +
      '(case-insensitive, in notificationName). Statistics are not included: read one ' +
      'notification with includeStats=true for them.',
  })
  @ApiOkResponse({ type: NotificationPage })
  @ApiBadRequestResponse({
    description: 'A status that does not exist, a malformed cursor or passSerialNumber',
    type: ErrorBody,
    example: {
      txId: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
      timestamp: '2026-01-31T12:00:00.000Z',
      errorCode: 'INVALID_INPUT',
      context: {
        status:
          'each value in status must be one of the following values: Draft, Initializing, Processing, Finalizing, Published, Scheduled, AppleFailedGoogleSuccess, AppleSuccessGoogleFailed, Failed',
      },
    },
  })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListNotificationsQuery,
  ): Promise<NotificationPage> {
    const page = await this.notifications.list(workspaceId, query);
    return { ...page, items: await Promise.all(page.items.map((item) => this.respond(item))) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One notification, with includeStats=true its sends and link clicks' })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: GetNotificationQuery,
  ): Promise<NotificationResponse> {
    const notification = await this.notifications.get(workspaceId, id);
    const stats =
      query.includeStats === true
        ? await this.stats.forNotification(notification, query)
        : undefined;
    return this.respond(notification, stats);
  }

  @Patch(':id')
  @HttpCode(200)
  @RequireWriter()
  @BodyLimits(TARGETED_BODY_LIMITS)
  @ApiOperation({
    summary: 'Update a Draft or Scheduled notification',
    description:
      'Setting one of holderIds, audience and segmentId clears the other two; null clears one. ' +
      'Moving the notification to another pass checks them against that pass. ' +
      DELIVERY_DESCRIPTION,
  })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiBadRequestResponse(BAD_TARGET)
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ description: 'No longer Draft or Scheduled', type: ErrorBody })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: UpdateNotificationDto,
  ): Promise<NotificationResponse> {
    return this.respond(await this.notifications.update(workspaceId, principal.userId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({ summary: 'Delete a Draft or Scheduled notification' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ description: 'No longer Draft or Scheduled', type: ErrorBody })
  async remove(@CurrentWorkspace() workspaceId: string, @Param() { id }: IdParam): Promise<void> {
    await this.notifications.remove(workspaceId, id);
  }

  private async respond(
    notification: Notification,
    stats?: NotificationStatsResponse,
  ): Promise<NotificationResponse> {
    const confirmation = await this.delivery.confirmationOf(notification);
    return toNotificationResponse(notification, confirmation, stats);
  }
}
