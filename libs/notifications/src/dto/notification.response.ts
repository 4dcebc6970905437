import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  NOTIFICATION_STATUSES,
  type Notification,
  type NotificationStatus,
} from '../entities/notification.entity';

export class WorkspaceTopLinkStatsResponse {
  @ApiProperty({ description: 'Id of the short link' }) id!: string;
  @ApiProperty() linkUrl!: string;
  @ApiProperty() totalClicks!: number;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class LinkStatsPage {
  @ApiProperty({ type: [WorkspaceTopLinkStatsResponse] }) items!: WorkspaceTopLinkStatsResponse[];
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Integer-like offset of the next page',
  })
  cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export class NotificationStatsResponse {
  @ApiProperty({ description: 'Id of the notification' }) id!: string;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
  @ApiProperty() totalNotificationsSent!: number;
  @ApiProperty({
    description:
      "Clicks on the pass's short links from when this notification was published until the next notification of the pass was published (or now).",
  })
  totalLinksClicks!: number;
  @ApiProperty({ type: LinkStatsPage }) linkStats!: LinkStatsPage;
}

export class NotificationResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Id of the pass' }) passSerialNumber!: string;
  @ApiProperty() notificationName!: string;
  @ApiProperty({ nullable: true, type: String }) notificationMessage!: string | null;
  @ApiProperty({ enum: NOTIFICATION_STATUSES }) status!: NotificationStatus;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) scheduledTime!: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When delivery finished',
  })
  publishedTime!: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the first push left',
  })
  sentTime!: string | null;
  @ApiProperty({ description: 'WalletA devices APNs accepted the push for' })
  appleNotificationSentCount!: number;
  @ApiProperty({ description: 'WalletB holders of the pass when Google accepted the message' })
  googleNotificationSentCount!: number;
  @ApiProperty() totalNotificationSentCount!: number;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Why a platform failed' })
  failureReason!: string | null;
  @ApiProperty() accountId!: string;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
  @ApiPropertyOptional({ type: NotificationStatsResponse, description: 'With includeStats=true' })
  notificationStats?: NotificationStatsResponse;
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export function toNotificationResponse(
  notification: Notification,
  stats?: NotificationStatsResponse,
): NotificationResponse {
  return {
    id: notification.id,
    passSerialNumber: notification.passId,
    notificationName: notification.notificationName,
    notificationMessage: notification.notificationMessage,
    status: notification.status,
    scheduledTime: iso(notification.scheduledTime),
    publishedTime: iso(notification.publishedTime),
    sentTime: iso(notification.sentTime),
    appleNotificationSentCount: notification.appleNotificationSentCount,
    googleNotificationSentCount: notification.googleNotificationSentCount,
    totalNotificationSentCount: notification.totalNotificationSentCount,
    failureReason: notification.failureReason,
    accountId: notification.accountId,
    workspaceId: notification.workspaceId,
    createdTime: notification.createdTime.toISOString(),
    updatedTime: notification.updatedTime.toISOString(),
    createdBy: notification.createdBy,
    updatedBy: notification.updatedBy,
    ...(stats ? { notificationStats: stats } : {}),
  };
}
