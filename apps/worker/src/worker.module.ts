import {
  ConfigModule,
  DatabaseModule,
  SchedulerModule,
  RetentionModule,
  ServiceEventsModule,
  type AppConfig,
} from '@app/core';
import { AudiencesModule, HolderBulkChangesModule } from '@app/audiences';
import { HoldersModule } from '@app/holders';
import { NotificationsModule } from '@app/notifications';
import { PassStatsModule } from '@app/passes';
import { WalletAModule } from '@app/wallet-a';
import { WalletBModule } from '@app/wallet-b';
import { WebhooksModule } from '@app/webhooks';
import { DynamicModule, Module } from '@nestjs/common';

/**
 * The delivery worker's application context, without HTTP: configuration, database, and the
 * delivery modules whose workers claim due work from the shared database (WalletA pass-update
 * pushes, notification delivery, webhooks) and the listeners of the events they record
 * (per-day pass statistics, webhooks' outbox). Run as many as needed; they coordinate through
 * leases in the database only.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        // A worker process always works, whatever WORKER_ENABLED says for API processes.
        ConfigModule.forRoot({ ...config, worker: { ...config.worker, enabled: true } }),
        // The primary alone, never DB_READ_URLS' replicas: what a worker reads decides what it
        // writes next (claims, leases, snapshots), which a lagging copy would get wrong.
        DatabaseModule.forRoot(),
        SchedulerModule,
        RetentionModule,
        ServiceEventsModule,
        WalletAModule,
        WalletBModule,
        NotificationsModule,
        // Applies bulk changes of holders.
        HolderBulkChangesModule,
        HoldersModule,
        AudiencesModule,
        // Events recorded here (APNs deactivations, finished notifications) count too.
        PassStatsModule,
        // Records events (the worker's changes cause some too) and delivers webhooks.
        WebhooksModule,
      ],
    };
  }
}
