import { AuthModule } from '@app/auth';
import { AudiencesModule, SegmentsService } from '@app/audiences';
import { PassesModule } from '@app/passes';
import { WalletAModule } from '@app/wallet-a';
import { WalletBModule } from '@app/wallet-b';
import { RetentionWorker } from '@app/core';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from './channels/notification-channel';
import { WalletANotificationChannel } from './channels/wallet-a.channel';
import { WalletAFanOut } from './channels/wallet-a-fan-out';
import { WalletBNotificationChannel } from './channels/wallet-b.channel';
import { DeliveryController } from './delivery/delivery.controller';
import { DeliveryService } from './delivery/delivery.service';
import { NotificationDelivery } from './entities/notification-delivery.entity';
import { NotificationShard } from './entities/notification-shard.entity';
import { FINAL_STATUSES, Notification } from './entities/notification.entity';
import { NotificationShardWorker } from './channels/notification-shard.worker';
import { NotificationStatsService } from './notification-stats.service';
import { NotificationWorker } from './notification.worker';
import { NotificationsController } from './notifications.controller';
import { NotificationsService } from './notifications.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Notification, NotificationDelivery, NotificationShard]),
    AuthModule,
    PassesModule,
    AudiencesModule,
    WalletAModule,
    WalletBModule,
  ],
  controllers: [NotificationsController, DeliveryController],
  providers: [
    NotificationsService,
    NotificationStatsService,
    DeliveryService,
    NotificationWorker,
    NotificationShardWorker,
    WalletAFanOut,
    WalletANotificationChannel,
    WalletBNotificationChannel,
    {
      // The order the worker delivers in: WalletA first, whose fan-out is the long part.
      provide: NOTIFICATION_CHANNELS,
      inject: [WalletANotificationChannel, WalletBNotificationChannel],
      useFactory: (...channels: NotificationChannel[]) => channels,
    },
  ],
  exports: [NotificationsService, NotificationWorker, NotificationShardWorker],
})
export class NotificationsModule {
  constructor(
    retention: RetentionWorker,
    segments: SegmentsService,
    notifications: NotificationsService,
  ) {
    // A segment a notification is still to be sent to cannot be deleted (409).
    segments.registerUseCheck((workspaceId, segmentId) =>
      notifications.segmentInUse(workspaceId, segmentId),
    );
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
    // A notification's shards go with its deliveries: only its fan-out read them.
    retention.register({
      table: 'notification_shard',
      key: 'id',
      expired: ({ cutoff }) => ({
        where: `state = 'done' AND updated_time < ? AND notification_id IN (SELECT id FROM notification WHERE status IN (${finals}))`,
        parameters: [cutoff],
      }),
    });
    // The holders an audience matched when a notification was sent: read only while it is
    // delivered. Their key is (snapshot, holder); a bulk change's snapshot is not ours to delete.
    retention.register({
      table: 'audience_member',
      key: ['snapshot_id', 'holder_id'],
      expired: ({ cutoff }) => ({
        where: `snapshot_id IN (SELECT id FROM notification WHERE status IN (${finals}) AND published_time < ?)`,
        parameters: [cutoff],
      }),
    });
  }
}
