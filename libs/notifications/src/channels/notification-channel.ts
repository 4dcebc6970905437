import type { Pass } from '@app/passes';
import type { EntityManager } from 'typeorm';
import type { Notification, PlatformOutcome } from '../entities/notification.entity';
import type { Recipients } from '../notification-target';

/** What one wallet platform made of a notification. */
export interface ChannelResult {
  outcome: PlatformOutcome;
  /** Holders (devices or objects) the platform accepted the notification for. */
  sent: number;
  /** Why the platform failed, for the notification's `failureReason`. */
  reason: string | null;
}

/**
 * Saves a delivery's progress on the notification row and extends the worker's lease; false
 * when the worker lost the lease (another worker goes on, this one stops). Given a
 * transaction's manager, the write commits with the rest of that transaction.
 */
export type DeliveryCheckpoint = (
  changes: Partial<Notification>,
  manager?: EntityManager,
) => Promise<boolean>;

/**
 * A wallet platform as the notification worker sees it: what the platform does with a
 * notification, its outcome and its sent count. The worker asks each channel in turn; a
 * channel resumes where an earlier attempt stopped (the notification row carries its
 * checkpoints), so a worker that dies and is replaced sends nothing twice beyond its in-flight
 * window. A channel is told whom to reach ({@link Recipients}: the whole pass, or the holders the
 * worker wrote down) and never reads the notification's target itself. Add a platform by adding
 * a channel to {@link NOTIFICATION_CHANNELS}.
 */
export interface NotificationChannel {
  /** The platform's counters on the notification: `apple*` or `google*`. */
  readonly platform: 'apple' | 'google';
  /** Delivers the notification to `recipients`; `null` when the lease was lost on the way. */
  deliver(
    notification: Notification,
    pass: Pass,
    recipients: Recipients,
    checkpoint: DeliveryCheckpoint,
  ): Promise<ChannelResult | null>;
}

export const NOTIFICATION_CHANNELS = Symbol('NOTIFICATION_CHANNELS');
