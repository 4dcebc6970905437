import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** GET /wallet-pass/{id}/stats. The dates' rules are in stats-range.ts. */
export class PassStatsQuery {
  @ApiPropertyOptional({
    format: 'date',
    description: 'First day (UTC), included. Default: 29 days before `to`.',
    example: '2026-01-01',
  })
  @IsOptional()
  @IsString()
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    description: 'Last day (UTC), included; at most 365 days after `from`. Default: today.',
    example: '2026-01-31',
  })
  @IsOptional()
  @IsString()
  to?: string;
}

export class PassStatsDay {
  @ApiProperty({ format: 'date', description: 'The UTC day', example: '2026-01-31' })
  date!: string;

  @ApiProperty({
    description: 'WalletA devices that registered the pass (again, for one that had removed it)',
    example: 14,
  })
  appleInstalls!: number;

  @ApiProperty({
    description: 'WalletB objects saved (again, for one that had been deleted)',
    example: 6,
  })
  googleInstalls!: number;

  @ApiProperty({
    description: 'WalletA devices that removed the pass, or that APNs no longer reaches',
    example: 2,
  })
  appleUninstalls!: number;

  @ApiProperty({ description: 'WalletB objects deleted', example: 1 })
  googleUninstalls!: number;

  @ApiProperty({ description: "Counted clicks on the pass's short links", example: 37 })
  linkClicks!: number;

  @ApiProperty({
    description:
      "Sends of the pass's notifications that finished that day (their totalNotificationSentCount)",
    example: 165,
  })
  notificationsSent!: number;
}

const EXAMPLE_DAYS: PassStatsDay[] = [
  {
    date: '2026-01-30',
    appleInstalls: 0,
    googleInstalls: 0,
    appleUninstalls: 0,
    googleUninstalls: 0,
    linkClicks: 0,
    notificationsSent: 0,
  },
  {
    date: '2026-01-31',
    appleInstalls: 14,
    googleInstalls: 6,
    appleUninstalls: 2,
    googleUninstalls: 1,
    linkClicks: 37,
    notificationsSent: 165,
  },
];

export class PassStatsResponse {
  @ApiProperty({
    type: [PassStatsDay],
    description: 'One entry per UTC day of the range, oldest first; days without events are zeros.',
    example: EXAMPLE_DAYS,
  })
  days!: PassStatsDay[];
}
