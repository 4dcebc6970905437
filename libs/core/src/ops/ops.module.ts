import { Module } from '@nestjs/common';
import { HttpObservabilityMiddleware } from './http-observability.middleware';
import { MetricsService } from './metrics.service';
import { OpsController } from './ops.controller';

/**
 * Health, metrics and the access log. The HTTP app mounts {@link HttpObservabilityMiddleware}
 * itself (app.setup.ts), as a plain middleware before every route, rather than through Nest's
 * `MiddlewareConsumer`: for `forRoutes('{*path}')` Nest adds a route layer per global-prefix
 * exclusion and per route of an excluded controller (27 here), which Express then tests, one
 * regular expression each, on every request (docs/decisions.md, "Hot paths").
 */
@Module({
  controllers: [OpsController],
  providers: [MetricsService, HttpObservabilityMiddleware],
  exports: [MetricsService, HttpObservabilityMiddleware],
})
export class OpsModule {}
