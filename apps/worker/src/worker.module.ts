import {
  ConfigModule,
  DatabaseModule,
  SchedulerModule,
  RetentionModule,
  type AppConfig,
} from '@app/core';
import { NotificationsModule } from '@app/notifications';
import { WalletAModule } from '@app/wallet-a';
import { WalletBModule } from '@app/wallet-b';
import { DynamicModule, Module } from '@nestjs/common';

/**
 * The delivery worker's application context, without HTTP: configuration, database, and the
 * delivery modules whose workers claim due work from the shared database (WalletA pass-update
 * pushes, notification delivery). Run as many as needed; they coordinate through leases in
 * the database only.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        // A worker process always works, whatever WORKER_ENABLED says for API processes.
        ConfigModule.forRoot({ ...config, worker: { ...config.worker, enabled: true } }),
        DatabaseModule.forRoot(),
        SchedulerModule,
        RetentionModule,
        WalletAModule,
        WalletBModule,
        NotificationsModule,
      ],
    };
  }
}
