export * from './entities/notification-delivery.entity';
export * from './entities/notification.entity';
export * from './notification.worker';
export * from './notifications.module';
export * from './notifications.service';
export * from './wallet-b-messenger';

import { NotificationDelivery } from './entities/notification-delivery.entity';
import { Notification } from './entities/notification.entity';
export const NOTIFICATION_ENTITIES = [Notification, NotificationDelivery];
