import { ID_PATTERN, ID_MESSAGE } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { DeliverySummary } from '../delivery.service';

export class DeliveryQuery {
  @ApiPropertyOptional({ description: "Only this holder's devices (their personal copy)" })
  @IsOptional()
  @IsString()
  @Matches(ID_PATTERN, ID_MESSAGE)
  @MaxLength(64)
  holderId?: string;
}

export class DeliveryResponse {
  @ApiProperty({
    description: "WalletA devices registered now (the shared pass's and the holders' copies)",
    example: 1200,
  })
  registered!: number;

  @ApiProperty({
    description:
      'Devices that hold the current version: they registered at it, or fetched it (200, or 304 because they had it)',
    example: 1187,
  })
  upToDate!: number;

  @ApiProperty({ description: '`registered - upToDate`: not yet shown to hold it', example: 13 })
  behind!: number;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'The latest push to these devices (a pass change or a notification)',
  })
  lastPushTime!: string | null;
}

export const toDeliveryResponse = (summary: DeliverySummary): DeliveryResponse => ({
  registered: summary.registered,
  upToDate: summary.upToDate,
  behind: summary.behind,
  lastPushTime: summary.lastPushTime?.toISOString() ?? null,
});
