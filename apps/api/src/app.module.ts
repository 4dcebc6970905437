import { AuthModule } from '@app/auth';
import { CampaignsModule } from '@app/campaigns';
import {
  ConfigModule,
  DatabaseModule,
  OpsModule,
  RetentionModule,
  ServiceEventsModule,
  SchedulerModule,
  type AppConfig,
} from '@app/core';
import { LocationsModule } from '@app/locations';
import { NotificationsModule } from '@app/notifications';
import { AudiencesModule, HolderBulkChangesModule } from '@app/audiences';
import { AutomationsModule } from '@app/automations';
import { HoldersModule } from '@app/holders';
import { PassesModule, PassStatsModule } from '@app/passes';
import { UploadsModule } from '@app/uploads';
import { WalletAModule } from '@app/wallet-a';
import { WalletBModule } from '@app/wallet-b';
import { WebhooksModule } from '@app/webhooks';
import { DynamicModule, Module } from '@nestjs/common';
import { HttpModule } from './http.module';

/** The HTTP application. Built from a parsed config so tests can start it with their own. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        // Holder lists, audience sizes and statistics read from DB_READ_URLS' replicas, if any.
        DatabaseModule.forRoot({ readReplicas: true }),
        SchedulerModule,
        RetentionModule,
        ServiceEventsModule,
        HttpModule,
        OpsModule,
        AuthModule,
        UploadsModule,
        // Before PassesModule: routes are matched in module order, and the passes controller's
        // `GET /wallet-pass/:id` would otherwise answer `GET /wallet-pass/notifications`.
        NotificationsModule,
        PassesModule,
        // Routes and the OpenAPI document follow this order: bulk changes, holders, segments,
        // automations.
        HolderBulkChangesModule,
        HoldersModule,
        AudiencesModule,
        AutomationsModule,
        // After NotificationsModule too: `GET /wallet-pass/:id/stats` would take
        // `GET /wallet-pass/notifications/stats` (a notification id, however unlikely).
        PassStatsModule,
        LocationsModule,
        CampaignsModule,
        WalletAModule,
        WalletBModule,
        WebhooksModule,
      ],
    };
  }
}
