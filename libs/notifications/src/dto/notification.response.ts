import { AUDIENCE_EXAMPLE, type AudienceJson } from '@app/audiences';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { NotificationConfirmation } from '../delivery/delivery.service';
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

export class ConfirmationSecondsResponse {
  @ApiProperty({ example: 4.2 }) p50!: number;
  @ApiProperty({ example: 38 }) p95!: number;
}

export class NotificationResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Id of the pass' }) passSerialNumber!: string;
  @ApiProperty() notificationName!: string;
  @ApiProperty({ nullable: true, type: String }) notificationMessage!: string | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      'The holders it reaches (their passes only). holderIds, segmentId and audience all null: ' +
      'every holder and the shared pass',
  })
  holderIds!: string[] | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The segment of the pass whose holders it reaches (read when it is sent)',
  })
  segmentId!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: AUDIENCE_EXAMPLE,
    description:
      'The audience it reaches: as given; for a segment, null until it is sent, then the ' +
      "segment's audience as it was evaluated",
  })
  audience!: AudienceJson | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1840,
    description:
      'Holders the audience or segment matched when the notification was sent; null before, ' +
      'and for a notification to holderIds or to everyone',
  })
  audienceSize!: number | null;
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
  @ApiProperty({
    description:
      "WalletA devices APNs accepted the push for (with holderIds, an audience or a segment: those holders' devices)",
  })
  appleNotificationSentCount!: number;
  @ApiProperty({
    description:
      'WalletB holders of the pass when Google accepted the message (with holderIds, an audience or a segment: the targeted holders whose objects got it)',
  })
  googleNotificationSentCount!: number;
  @ApiProperty() totalNotificationSentCount!: number;
  @ApiProperty({
    description:
      'WalletA devices that fetched the version carrying the message (or a later one) after the push: 200, or 304 because they had it; at most appleNotificationSentCount',
  })
  appleConfirmedCount!: number;
  @ApiProperty({
    type: ConfirmationSecondsResponse,
    nullable: true,
    description: 'Seconds from the push to the fetch (median, 95th percentile); null until one',
  })
  appleConfirmationSeconds!: ConfirmationSecondsResponse | null;
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

const EXAMPLE_NOTIFICATION: NotificationResponse = {
  id: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
  passSerialNumber: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b',
  notificationName: 'Weekend promo',
  notificationMessage: 'Double points this weekend!',
  holderIds: null,
  segmentId: null,
  audience: null,
  audienceSize: null,
  status: 'Published',
  scheduledTime: null,
  publishedTime: '2026-01-31T12:00:02.140Z',
  sentTime: '2026-01-31T12:00:00.512Z',
  appleNotificationSentCount: 120,
  googleNotificationSentCount: 45,
  totalNotificationSentCount: 165,
  appleConfirmedCount: 117,
  appleConfirmationSeconds: { p50: 4.2, p95: 38 },
  failureReason: null,
  accountId: '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b',
  workspaceId: '019a2b3c-3333-7f60-8a1b-2c3d4e5f6a7b',
  createdTime: '2026-01-31T12:00:00.000Z',
  updatedTime: '2026-01-31T12:00:02.140Z',
  createdBy: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b',
  updatedBy: '019a2b3c-4444-7f60-8a1b-2c3d4e5f6a7b',
};

export class NotificationPage {
  @ApiProperty({ type: [NotificationResponse], example: [EXAMPLE_NOTIFICATION] })
  items!: NotificationResponse[];
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass it back as `cursor` for the next page; null on the last page.',
    example: 'eyJhZnRlciI6IjAxOWEyYjNjLTRkNWUtN2Y2MC04YTFiLTJjM2Q0ZTVmNmE3YiJ9',
  })
  cursor!: string | null;
  @ApiProperty({ example: true }) hasMore!: boolean;
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export function toNotificationResponse(
  notification: Notification,
  confirmation: NotificationConfirmation,
  stats?: NotificationStatsResponse,
): NotificationResponse {
  return {
    id: notification.id,
    passSerialNumber: notification.passId,
    notificationName: notification.notificationName,
    notificationMessage: notification.notificationMessage,
    holderIds: notification.holderIds,
    segmentId: notification.segmentId,
    audience: notification.audience,
    audienceSize: notification.audienceSize,
    status: notification.status,
    scheduledTime: iso(notification.scheduledTime),
    publishedTime: iso(notification.publishedTime),
    sentTime: iso(notification.sentTime),
    appleNotificationSentCount: notification.appleNotificationSentCount,
    googleNotificationSentCount: notification.googleNotificationSentCount,
    totalNotificationSentCount: notification.totalNotificationSentCount,
    appleConfirmedCount: confirmation.appleConfirmedCount,
    appleConfirmationSeconds: confirmation.appleConfirmationSeconds,
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
