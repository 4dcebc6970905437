import { ConfigModule, DatabaseModule, type AppConfig } from '@app/core';
import { DynamicModule, Module } from '@nestjs/common';

/**
 * The delivery worker's application context: configuration and database. Delivery itself
 * (notification claiming and fan-out) registers here as it is built.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot()],
    };
  }
}
