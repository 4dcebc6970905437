import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { HttpObservabilityMiddleware } from './http-observability.middleware';
import { MetricsService } from './metrics.service';
import { OpsController } from './ops.controller';

@Module({
  controllers: [OpsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class OpsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(HttpObservabilityMiddleware)
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
