import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import { Authenticated, RequireWriter, ErrorBody, IdParam, type Principal } from '@app/core';
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
import {
  CreateNotificationDto,
  GetNotificationQuery,
  UpdateNotificationDto,
} from './dto/notification.dto';
import { NotificationResponse, toNotificationResponse } from './dto/notification.response';
import { NotificationStatsService } from './notification-stats.service';
import { NotificationsService } from './notifications.service';

const DELIVERY_DESCRIPTION =
  'WalletA: the message becomes a field of the pass (label: the pass notificationHeader) whose changeMessage shows it on the lock screen; every registered device is pushed. ' +
  "WalletB: the message is added to the pass on Google's side and shows on the back of the pass; Google lets 3 messages per pass in 24 hours notify holders, later ones are still added but without a notification. " +
  'Delivery moves Initializing → Processing → Finalizing → Published, or Failed / AppleFailedGoogleSuccess / AppleSuccessGoogleFailed (see failureReason). ' +
  'Scheduled notifications go out within seconds of scheduledTime.';

@ApiTags('Notifications')
@Controller('wallet-pass/notifications')
@Authenticated()
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly stats: NotificationStatsService,
  ) {}

  @Post()
  @RequireWriter()
  @ApiOperation({
    summary: 'Create a notification',
    description: `No status sends it now; \`Draft\` keeps it; \`Scheduled\` (with scheduledTime) sends it then. ${DELIVERY_DESCRIPTION}`,
  })
  @ApiCreatedResponse({ type: NotificationResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ description: 'Unknown pass', type: ErrorBody })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateNotificationDto,
  ): Promise<NotificationResponse> {
    return toNotificationResponse(
      await this.notifications.create(workspaceId, principal.userId, body),
    );
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
    return toNotificationResponse(notification, stats);
  }

  @Patch(':id')
  @HttpCode(200)
  @RequireWriter()
  @ApiOperation({
    summary: 'Update a Draft or Scheduled notification',
    description: DELIVERY_DESCRIPTION,
  })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ description: 'No longer Draft or Scheduled', type: ErrorBody })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: UpdateNotificationDto,
  ): Promise<NotificationResponse> {
    return toNotificationResponse(
      await this.notifications.update(workspaceId, principal.userId, id, body),
    );
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
}
