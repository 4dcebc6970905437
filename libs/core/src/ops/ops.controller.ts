import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { withDatabaseTimeouts } from '../database/mysql-deadlines';
import { UnavailableError } from '../errors/domain-errors';
import { ErrorBody } from '../errors/error-body';
import { Public } from '../http/auth-policy';
import { SkipRateLimit } from '../rate-limit/rate-limit.guard';
import { RATE_LIMIT_REDIS } from '../rate-limit/rate-limit.module';
import { HealthDto } from './health.dto';
import { MetricsService } from './metrics.service';

/** `/health` answers within this long whatever the database does. */
const DATABASE_PING_TIMEOUT_MS = 2000;
/**
 * The ping's own MySQL deadlines, below the answer's: a silent host then also costs the ping's
 * connection (destroyed, see mysql-deadlines.ts) rather than leaving it stuck in the pool.
 */
const PING_DEADLINES = { queryMs: 1500, acquireMs: 1500 };
/**
 * Redis is `down` when a PING is not answered within this long (on the rate-limit store's
 * connection, whose own 500 ms command deadline usually ends it first): a frozen Redis shows at
 * the first probe, and `/health` never waits on it longer than on the database.
 */
const REDIS_PING_TIMEOUT_MS = 1000;

@ApiTags('Operations')
@Controller()
@Public()
@SkipRateLimit()
export class OpsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
    @Optional() @Inject(RATE_LIMIT_REDIS) private readonly redis: Redis | null = null,
  ) {}

  @Get('health')
  @ApiOperation({
    summary: 'Check that the service is alive and its database answers; report Redis',
  })
  @ApiOkResponse({
    description:
      'Alive, and the database answers: `ok`, or `degraded` when Redis (configured) does not ' +
      'answer; the service works on without it, so this is not a failure',
    type: HealthDto,
    examples: {
      ok: { summary: 'Everything answers', value: { status: 'ok', database: 'up', redis: 'up' } },
      degraded: {
        summary: 'Redis does not answer',
        value: { status: 'degraded', database: 'up', redis: 'down' },
      },
      withoutRedis: { summary: 'No REDIS_URL', value: { status: 'ok', database: 'up' } },
    },
  })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer', type: ErrorBody })
  async health(): Promise<HealthDto> {
    const [, redis] = await Promise.all([this.pingDatabase(), this.pingRedis()]);
    if (redis === undefined) return { status: 'ok', database: 'up' };
    return { status: redis === 'up' ? 'ok' : 'degraded', database: 'up', redis };
  }

  @Get('metrics')
  @ApiOperation({ summary: 'Read the Prometheus metrics' })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format' })
  metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }

  private async pingDatabase(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UnavailableError('Database did not answer in time')),
        DATABASE_PING_TIMEOUT_MS,
      );
    });
    try {
      if (!this.dataSource.isInitialized) throw new UnavailableError('Database is not connected');
      const ping = withDatabaseTimeouts(PING_DEADLINES, () => this.dataSource.query('SELECT 1'));
      await Promise.race([ping, timeout]);
    } catch (error) {
      if (error instanceof UnavailableError) throw error;
      throw new UnavailableError('Database is not reachable');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Undefined without REDIS_URL. Never throws: Redis away degrades the service, no more. */
  private async pingRedis(): Promise<'up' | 'down' | undefined> {
    const redis = this.redis;
    if (redis === null) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'down'>((resolve) => {
      timer = setTimeout(() => resolve('down'), REDIS_PING_TIMEOUT_MS);
    });
    try {
      return await Promise.race([redis.ping().then(() => 'up' as const), timeout]);
    } catch {
      return 'down';
    } finally {
      clearTimeout(timer);
    }
  }
}
