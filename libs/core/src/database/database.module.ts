import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { SchemaMigrator } from './schema-migrator';
import { CostlyReads } from './costly-reads';

/** The TypeORM connection (entities registered by each module's `forFeature`) and migrations. */
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...dataSourceOptions(config.database, []),
            autoLoadEntities: true,
            // Fail start-up fast rather than retrying for minutes; orchestration restarts us.
            retryAttempts: 3,
            retryDelay: 1000,
          }),
        }),
      ],
      providers: [SchemaMigrator, CostlyReads],
      exports: [CostlyReads],
    };
  }
}
