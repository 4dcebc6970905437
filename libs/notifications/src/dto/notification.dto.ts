import {
  ID_PATTERN,
  MAX_PAGE_SIZE,
  MUST_NOT_BE_EMPTY,
  NotEmpty,
  QueryBoolean,
  ReadOnly,
  Required,
  ID_MESSAGE,
} from '@app/core';
import { AUDIENCE_PROPERTY } from '@app/audiences';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import {
  REQUESTABLE_STATUSES,
  type JsonObject,
  type RequestableStatus,
} from '../entities/notification.entity';

const ISO_MESSAGE = { message: 'must be an ISO 8601 date-time with a time zone' };
/** Long enough for a lock-screen or back-of-pass message, short enough for both wallets. */
export const MAX_MESSAGE_LENGTH = 1000;
/** A notification reaches at most this many chosen holders. */
export const MAX_TARGETED_HOLDERS = 1000;

/** What every one of the three ways to choose whom a notification reaches says. */
const TARGETS =
  'At most one of holderIds, audience and segmentId (400 otherwise); setting one (PATCH) ' +
  'clears the others; none, or all null: every holder and the shared pass.';

/** Fields a client may send back although delivery owns them. */
class NotificationReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() publishedTime?: unknown;
  @ReadOnly() sentTime?: unknown;
  @ReadOnly() appleNotificationSentCount?: unknown;
  @ReadOnly() googleNotificationSentCount?: unknown;
  @ReadOnly() totalNotificationSentCount?: unknown;
  @ReadOnly() audienceSize?: unknown;
  @ReadOnly() notificationStats?: unknown;
  @ReadOnly() accountId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
  @ReadOnly() appleConfirmedCount?: unknown;
  @ReadOnly() appleConfirmationSeconds?: unknown;
  @ReadOnly() failureReason?: unknown;
}

/** Message, status and schedule: what create and update share. */
class NotificationContentFields extends NotificationReadOnlyFields {
  @ApiPropertyOptional({
    description:
      'Shown on the WalletA lock screen and on the back of WalletB passes. Required (non-empty) to send.',
    maxLength: MAX_MESSAGE_LENGTH,
    example: 'Double points this weekend!',
  })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(MAX_MESSAGE_LENGTH)
  notificationMessage?: string;

  @ApiPropertyOptional({
    enum: REQUESTABLE_STATUSES,
    description: '`Draft`: not sent. `Processing`: send now. `Scheduled`: send at `scheduledTime`.',
  })
  @IsOptional()
  @IsIn(REQUESTABLE_STATUSES)
  status?: RequestableStatus;

  @ApiPropertyOptional({
    format: 'date-time',
    nullable: true,
    type: String,
    example: '2026-12-01T09:00:00.000Z',
  })
  @IsOptional()
  @ValidateIf((_object, value) => value !== null)
  @IsISO8601({ strict: true, strictSeparator: true }, ISO_MESSAGE)
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/, ISO_MESSAGE)
  scheduledTime?: string | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    maxItems: MAX_TARGETED_HOLDERS,
    description:
      'Ids of holders of the pass (personal passes) to reach only them: the message goes on ' +
      "their passes only (WalletA: their passes' lock screens; WalletB: their objects, not the " +
      'class). Each must be an Active holder of the pass. ' +
      TARGETS,
    example: ['019a2b3c-5555-7f60-8a1b-2c3d4e5f6a7b'],
  })
  @IsOptional()
  @ValidateIf((_object, value) => value !== null)
  @IsArray()
  @ArrayNotEmpty({ message: MUST_NOT_BE_EMPTY })
  @ArrayMaxSize(MAX_TARGETED_HOLDERS)
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, ...ID_MESSAGE })
  holderIds?: string[] | null;

  @ApiPropertyOptional({
    ...AUDIENCE_PROPERTY,
    nullable: true,
    description:
      'The holders of the pass to reach, by who they are: evaluated when the notification is ' +
      'sent (a Scheduled one reaches whoever matches at its time); only their devices and ' +
      "WalletB objects get the message, not the shared pass's devices. No limit on how many " +
      `match. ${TARGETS} ${AUDIENCE_PROPERTY.description}`,
  })
  @IsOptional()
  @ValidateIf((_object, value) => value !== null)
  @IsObject()
  audience?: JsonObject | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: ID_PATTERN.source,
    description:
      'A segment of the pass to reach: its audience as it is when the notification is sent. ' +
      `While a Draft or Scheduled notification uses it, the segment cannot be deleted. ${TARGETS}`,
    example: '019a2b3c-6666-7f60-8a1b-2c3d4e5f6a7b',
  })
  @IsOptional()
  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  segmentId?: string | null;
}

export class UpdateNotificationDto extends NotificationContentFields {
  @ApiPropertyOptional({
    description: 'Id of the pass (its serial number).',
    pattern: ID_PATTERN.source,
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  passSerialNumber?: string;

  @ApiPropertyOptional({ description: 'Internal label; not shown on the pass.', maxLength: 255 })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  notificationName?: string;
}

export class CreateNotificationDto extends NotificationContentFields {
  @ApiProperty({ description: 'Id of the pass (its serial number).', pattern: ID_PATTERN.source })
  @Required()
  @IsString()
  @MaxLength(64)
  @Matches(ID_PATTERN, ID_MESSAGE)
  passSerialNumber!: string;

  @ApiProperty({ description: 'Internal label; not shown on the pass.', maxLength: 255 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  notificationName!: string;
}

export class GetNotificationQuery {
  @ApiPropertyOptional({ description: 'Include notificationStats (sends and link clicks).' })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  includeStats?: boolean;

  @ApiPropertyOptional({
    description: 'Integer-like offset into linkStats (from its `cursor`).',
    example: '0',
  })
  @IsOptional()
  @Matches(/^\d{1,9}$/, { message: 'must be an integer of 0 or more' })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;
}
