import type { Pass } from '@app/passes';
import { WalletBService } from '@app/wallet-b';
import { Injectable } from '@nestjs/common';
import type { Notification } from '../entities/notification.entity';
import type {
  ChannelResult,
  DeliveryCheckpoint,
  NotificationChannel,
} from './notification-channel';

/**
 * WalletB: the message is added to the pass's class, which shows it to every holder of the
 * pass, or with `holderIds` to the chosen holders' own objects only. Google's answer is checkpointed on the notification, so a resumed delivery reports it
 * again instead of sending twice (and WalletBService dedupes by the notification id anyway).
 */
@Injectable()
export class WalletBNotificationChannel implements NotificationChannel {
  readonly platform = 'google';

  constructor(private readonly walletB: WalletBService) {}

  async deliver(
    notification: Notification,
    pass: Pass,
    checkpoint: DeliveryCheckpoint,
  ): Promise<ChannelResult | null> {
    if (notification.googleOutcome !== null) {
      return {
        outcome: notification.googleOutcome,
        sent: notification.googleNotificationSentCount,
        reason: null,
      };
    }
    const message = {
      id: notification.id,
      header: pass.notificationHeader ?? pass.passName,
      body: notification.notificationMessage ?? '',
    };
    const sent =
      notification.holderIds === null
        ? await this.walletB.sendMessage(pass, message)
        : await this.walletB.sendHolderMessages(pass, notification.holderIds, message);
    const result: ChannelResult =
      sent.status === 'sent'
        ? { outcome: 'success', sent: sent.recipients, reason: null }
        : { outcome: 'failed', sent: 0, reason: sent.reason };
    const held = await checkpoint({
      googleOutcome: result.outcome,
      googleNotificationSentCount: result.sent,
    });
    return held ? result : null;
  }
}
