import { LinkStatsService } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import type { GetNotificationQuery } from './dto/notification.dto';
import type { NotificationStatsResponse } from './dto/notification.response';
import { Notification } from './entities/notification.entity';

/**
 * A notification's statistics. Its click window: from when it went out (`sentTime`) until
 * the next notification of the same pass went out, or until now for the latest one. Before
 * it went out there is no window and every figure is 0.
 */
@Injectable()
export class NotificationStatsService {
  constructor(
    @InjectRepository(Notification) private readonly notifications: Repository<Notification>,
    private readonly links: LinkStatsService,
  ) {}

  async forNotification(
    notification: Notification,
    page: GetNotificationQuery,
  ): Promise<NotificationStatsResponse> {
    const common = {
      id: notification.id,
      workspaceId: notification.workspaceId,
      createdTime: notification.createdTime.toISOString(),
      updatedTime: notification.updatedTime.toISOString(),
      createdBy: notification.createdBy,
      updatedBy: notification.updatedBy,
      totalNotificationsSent: notification.totalNotificationSentCount,
    };
    if (notification.sentTime === null) {
      return {
        ...common,
        totalLinksClicks: 0,
        linkStats: { items: [], cursor: null, hasMore: false },
      };
    }
    const next = await this.notifications.findOne({
      where: {
        workspaceId: notification.workspaceId,
        passId: notification.passId,
        sentTime: MoreThan(notification.sentTime),
      },
      order: { sentTime: 'ASC', id: 'ASC' },
    });
    const window = await this.links.forWindow(
      notification.workspaceId,
      notification.passId,
      notification.sentTime,
      next?.sentTime ?? null,
      { cursor: page.cursor, limit: page.limit },
    );
    return { ...common, ...window };
  }
}
