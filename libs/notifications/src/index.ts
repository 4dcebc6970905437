export * from './channels/notification-channel';
export * from './entities/notification-delivery.entity';
export * from './entities/notification-shard.entity';
export * from './entities/notification.entity';
export * from './channels/notification-shard.worker';
export * from './notification.worker';
export * from './notifications.module';
export * from './notifications.service';

import { NotificationDelivery } from './entities/notification-delivery.entity';
import { NotificationShard } from './entities/notification-shard.entity';
import { Notification } from './entities/notification.entity';
export const NOTIFICATION_ENTITIES = [Notification, NotificationDelivery, NotificationShard];
