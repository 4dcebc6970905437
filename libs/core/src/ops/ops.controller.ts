import { Controller, Get, Header } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { withDatabaseTimeouts } from '../database/mysql-deadlines';
import { UnavailableError } from '../errors/domain-errors';
import { ErrorBody } from '../errors/error-body';
import { Public } from '../http/auth-policy';
import { SkipRateLimit } from '../rate-limit/rate-limit.guard';
import { MetricsService } from './metrics.service';

/** `/health` answers within this long whatever the database does. */
const DATABASE_PING_TIMEOUT_MS = 2000;
/**
 * The ping's own MySQL deadlines, below the answer's: a silent host then also costs the ping's
 * connection (destroyed, see mysql-deadlines.ts) rather than leaving it stuck in the pool.
 */
const PING_DEADLINES = { queryMs: 1500, acquireMs: 1500 };

@ApiTags('Operations')
@Controller()
@Public()
@SkipRateLimit()
export class OpsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Check that the service is alive and its database answers' })
  @ApiOkResponse({
    description: 'Alive, and the database answers',
    schema: { example: { status: 'ok', database: 'up' } },
  })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer', type: ErrorBody })
  async health(): Promise<{ status: 'ok'; database: 'up' }> {
    await this.pingDatabase();
    return { status: 'ok', database: 'up' };
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
}
