import { Leased, WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

export const NOTIFICATION_STATUSES = [
  'Draft',
  'Initializing',
  'Processing',
  'Finalizing',
  'Published',
  'Scheduled',
  'AppleFailedGoogleSuccess',
  'AppleSuccessGoogleFailed',
  'Failed',
] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** Where delivery ends: nothing changes a notification in these statuses any more. */
export const FINAL_STATUSES: readonly NotificationStatus[] = [
  'Published',
  'Failed',
  'AppleFailedGoogleSuccess',
  'AppleSuccessGoogleFailed',
];

/** What a client may ask for on create or update; the rest are set by delivery. */
export const REQUESTABLE_STATUSES = ['Draft', 'Processing', 'Scheduled'] as const;
export type RequestableStatus = (typeof REQUESTABLE_STATUSES)[number];

/** Only these can be changed or deleted (spec, States and transitions, rules 1 and 2). */
export const EDITABLE_STATUSES: NotificationStatus[] = ['Draft', 'Scheduled'];

export type PlatformOutcome = 'success' | 'failed';

@Entity({ name: 'notification' })
export class Notification extends Leased(WorkspaceOwnedEntity) {
  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 36 })
  accountId!: string;

  @Column({ name: 'notification_name', type: 'varchar', length: 255 })
  notificationName!: string;

  @Column({ name: 'notification_message', type: 'text', nullable: true })
  notificationMessage!: string | null;

  @Column({ type: 'varchar', length: 32 })
  status!: NotificationStatus;

  @Column({ name: 'scheduled_time', type: 'datetime', precision: 3, nullable: true })
  scheduledTime!: Date | null;

  /** When delivery finished (the spec's "time the notification was sent"). */
  @Column({ name: 'published_time', type: 'datetime', precision: 3, nullable: true })
  publishedTime!: Date | null;

  /** When the first push left (delivery started). */
  @Column({ name: 'sent_time', type: 'datetime', precision: 3, nullable: true })
  sentTime!: Date | null;

  @Column({ name: 'apple_sent_count', type: 'int', default: 0 })
  appleNotificationSentCount!: number;

  @Column({ name: 'google_sent_count', type: 'int', default: 0 })
  googleNotificationSentCount!: number;

  @Column({ name: 'total_sent_count', type: 'int', default: 0 })
  totalNotificationSentCount!: number;

  /** The pass version that carries this notification's message (set once, when prepared). */
  /** The holders the notification reaches (DESIGN.md §6); null: every holder and the shared pass. */
  @Column({ name: 'holder_ids', type: 'simple-json', nullable: true })
  holderIds!: string[] | null;

  @Column({ name: 'prepared_version', type: 'int', nullable: true })
  preparedVersion!: number | null;

  /**
   * Registrations are pushed in id order; shards are cut after this one. (Before shards, the
   * fan-out's own checkpoint: a notification left mid fan-out by an older worker resumes here.)
   */
  @Column({ name: 'fanout_cursor', type: 'varchar', length: 36, nullable: true })
  fanoutCursor!: string | null;

  /** How many shards the WalletA fan-out was cut into; null until it is cut (once). */
  @Column({ name: 'shard_count', type: 'int', nullable: true })
  shardCount!: number | null;

  @Column({ name: 'apple_outcome', type: 'varchar', length: 16, nullable: true })
  appleOutcome!: PlatformOutcome | null;

  @Column({ name: 'google_outcome', type: 'varchar', length: 16, nullable: true })
  googleOutcome!: PlatformOutcome | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;
}
