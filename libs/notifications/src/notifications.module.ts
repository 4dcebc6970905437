import { AuthModule } from '@app/auth';
import { PassesModule } from '@app/passes';
import { WalletAModule } from '@app/wallet-a';
import { WalletBModule } from '@app/wallet-b';
import { RetentionWorker } from '@app/core';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from './channels/notification-channel';
import { WalletANotificationChannel } from './channels/wallet-a.channel';
import { WalletBNotificationChannel } from './channels/wallet-b.channel';
import { NotificationDelivery } from './entities/notification-delivery.entity';
import { FINAL_STATUSES, Notification } from './entities/notification.entity';
import { NotificationStatsService } from './notification-stats.service';
import { NotificationWorker } from './notification.worker';
import { NotificationsController } from './notifications.controller';
import { NotificationsService } from './notifications.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Notification, NotificationDelivery]),
    AuthModule,
    PassesModule,
    WalletAModule,
    WalletBModule,
  ],
  controllers: [NotificationsController],
  providers: [
    NotificationsService,
    NotificationStatsService,
    NotificationWorker,
    WalletANotificationChannel,
    WalletBNotificationChannel,
    {
      // The order the worker delivers in: WalletA first, whose fan-out is the long part.
      provide: NOTIFICATION_CHANNELS,
      inject: [WalletANotificationChannel, WalletBNotificationChannel],
      useFactory: (...channels: NotificationChannel[]) => channels,
    },
  ],
  exports: [NotificationsService, NotificationWorker],
})
export class NotificationsModule {
  constructor(retention: RetentionWorker) {
    // Deliveries of a notification that has its final status are read by nothing but support;
    // the notification and its counters stay.
    const finals = FINAL_STATUSES.map((status) => `'${status}'`).join(', ');
    retention.register({
      table: 'notification_delivery',
      key: 'id',
      expired: ({ cutoff }) => ({
        where: `created_time < ? AND notification_id IN (SELECT id FROM notification WHERE status IN (${finals}))`,
        parameters: [cutoff],
      }),
    });
  }
}
