import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * `/health`'s answer while the database answers (it is 503 with the Error body when it does
 * not). A dependency the service works without while it is away (Redis) is listed when it is
 * configured, and makes the status `degraded`, not the answer a failure: the instance can still
 * serve, so a readiness probe keeps it.
 */
export class HealthDto {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description:
      '`ok` when every configured dependency answers; `degraded` when the database does but ' +
      'Redis does not (rate limits then count per instance, workers wait for their poll).',
    example: 'ok',
  })
  status!: 'ok' | 'degraded';

  @ApiProperty({ enum: ['up'], description: 'The database answered a query.' })
  database!: 'up';

  @ApiPropertyOptional({
    enum: ['up', 'down'],
    description:
      'Only with `REDIS_URL`: whether Redis answered a PING within 1 s. Absent without Redis.',
    example: 'up',
  })
  redis?: 'up' | 'down';
}
