import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AppRequest } from '../http/request-context';
import { MetricsService } from './metrics.service';

/** One access-log line and one metrics sample per request, written when the response ends. */
@Injectable()
export class HttpObservabilityMiddleware implements NestMiddleware {
  private readonly logger = new Logger('Http');

  constructor(private readonly metrics: MetricsService) {}

  use(request: AppRequest, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern, not the raw path, keeps label cardinality bounded.
      const route =
        (request.route as { path?: string } | undefined)?.path !== undefined
          ? `${request.baseUrl}${(request.route as { path: string }).path}`
          : 'unmatched';
      this.metrics.recordHttp(request.method, route, response.statusCode, seconds);
      this.logger.log({
        requestId: request.requestId,
        method: request.method,
        path: request.originalUrl.split('?')[0],
        status: response.statusCode,
        durationMs: Math.round(seconds * 1000),
        userId: request.principal?.userId,
        apiKeyId: request.principal?.apiKeyId,
      });
    });
    next();
  }
}
