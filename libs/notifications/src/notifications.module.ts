import { AuthModule } from '@app/auth';
import { PassesModule } from '@app/passes';
import { WalletAModule } from '@app/wallet-a';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationDelivery } from './entities/notification-delivery.entity';
import { Notification } from './entities/notification.entity';
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
  ],
  controllers: [NotificationsController],
  providers: [NotificationsService, NotificationStatsService, NotificationWorker],
  exports: [NotificationsService, NotificationWorker],
})
export class NotificationsModule {}
