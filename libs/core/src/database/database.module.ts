import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { SchemaMigrator } from './schema-migrator';
import { CostlyReads } from './costly-reads';
import { ReadReplica } from './read-replica';

/**
 * The TypeORM connection (entities registered by each module's `forFeature`) and migrations.
 * `readReplicas`: open pools to the replicas of DB_READ_URLS too, for the reads that may lag
 * (ReadReplica); the API asks for them, the worker process does not and uses the primary alone.
 */
@Module({})
export class DatabaseModule {
  static forRoot({ readReplicas = false }: { readReplicas?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...dataSourceOptions(config.database, [], { readReplicas }),
            autoLoadEntities: true,
            // Fail start-up fast rather than retrying for minutes; orchestration restarts us.
            retryAttempts: 3,
            retryDelay: 1000,
          }),
        }),
      ],
      providers: [SchemaMigrator, ReadReplica, CostlyReads],
      exports: [ReadReplica, CostlyReads],
    };
  }
}
