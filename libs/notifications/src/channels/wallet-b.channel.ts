import { APP_CONFIG, LEASE_MARGIN_MS, LeaseTime, type AppConfig } from '@app/core';
import { AudiencesService } from '@app/audiences';
import { type Pass } from '@app/passes';
import {
  LEASE_LOST_REASON,
  WalletBMessagesService,
  type KeepLease,
  type WalletBMessageInput,
  type WalletBSendResult,
} from '@app/wallet-b';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Notification } from '../entities/notification.entity';
import type { Recipients } from '../notification-target';
import type {
  ChannelResult,
  DeliveryCheckpoint,
  NotificationChannel,
} from './notification-channel';

/** Holders of a snapshot read and sent to per call: memory stays flat. */
export const SNAPSHOT_PAGE = 1000;

/**
 * WalletB: the message is added to the pass's class, which shows it to every holder of the
 * pass, or for a snapshot to the objects of its holders only, page by page.
 * Google's answer is checkpointed on the notification, so a resumed delivery reports it again
 * instead of sending twice (and WalletBMessagesService dedupes by the notification id and holder anyway).
 */
@Injectable()
export class WalletBNotificationChannel implements NotificationChannel {
  readonly platform = 'google';

  constructor(
    private readonly dataSource: DataSource,
    private readonly walletB: WalletBMessagesService,
    private readonly audiences: AudiencesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async deliver(
    notification: Notification,
    pass: Pass,
    recipients: Recipients,
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
    // Before each call to Google the notification's lease is made to outlast it (a checkpoint
    // extends it), so no other worker takes the notification over while a message is out.
    const lease = new LeaseTime(this.config.worker.leaseMs, null);
    const keep: KeepLease = (needMs) =>
      lease.ensure(needMs + LEASE_MARGIN_MS, () => checkpoint({}));
    const sent =
      recipients.kind === 'snapshot'
        ? await this.sendToSnapshot(recipients.notificationId, pass, message, keep)
        : await this.walletB.sendMessage(pass, message, keep);
    if (sent.status === 'failed' && sent.reason === LEASE_LOST_REASON) return null;
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

  /**
   * {@link WalletBMessagesService.sendHolderMessages} over the snapshot, a page of holder
   * ids at a time, the answers added up as one: sent when Google took it for some object or no
   * holder had one, failed when it refused every one (or WalletB cannot send at all, which the
   * first call says even for an empty snapshot).
   */
  private async sendToSnapshot(
    snapshotId: string,
    pass: Pass,
    message: WalletBMessageInput,
    keep: KeepLease,
  ): Promise<WalletBSendResult> {
    let recipients = 0;
    let notified = false;
    let failure: string | null = null;
    let after: string | null = null;
    for (;;) {
      const page = await this.audiences.snapshotPage(
        this.dataSource.manager,
        snapshotId,
        after,
        SNAPSHOT_PAGE,
      );
      const sent = await this.walletB.sendHolderMessages(pass, page, message, keep);
      if (sent.status === 'failed' && sent.reason === LEASE_LOST_REASON) return sent;
      if (sent.status === 'sent') {
        recipients += sent.recipients;
        notified ||= sent.notified;
      } else {
        failure ??= sent.reason;
      }
      if (page.length < SNAPSHOT_PAGE) break;
      after = page[page.length - 1];
    }
    if (failure !== null && recipients === 0) return { status: 'failed', reason: failure };
    return { status: 'sent', recipients, notified };
  }
}
