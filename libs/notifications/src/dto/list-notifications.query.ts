import { ID_PATTERN, PageQuery, QueryId, QueryList } from '@app/core';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { NOTIFICATION_STATUSES, type NotificationStatus } from '../entities/notification.entity';

/** GET /wallet-pass/notifications, shaped like the other list queries. */
export class ListNotificationsQuery extends PageQuery {
  @ApiPropertyOptional({
    pattern: ID_PATTERN.source,
    description: 'Only the notifications of this pass (its id, the serial number).',
    example: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b',
  })
  @QueryId()
  passSerialNumber?: string;

  @ApiPropertyOptional({
    enum: NOTIFICATION_STATUSES,
    isArray: true,
    description: 'Repeat the parameter or separate with commas.',
    example: ['Scheduled', 'Draft'],
  })
  @IsOptional()
  @QueryList()
  @IsIn(NOTIFICATION_STATUSES, { each: true })
  status?: NotificationStatus[];

  @ApiPropertyOptional({
    maxLength: 255,
    description: 'Case-insensitive search in notificationName.',
    example: 'weekend',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  keyword?: string;
}
