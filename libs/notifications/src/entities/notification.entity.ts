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

/** Delivery is under way: a worker holds the notification, or takes it when its lease runs out. */
export const ACTIVE_STATUSES: readonly NotificationStatus[] = [
  'Initializing',
  'Processing',
  'Finalizing',
];

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

/**
 * A JSON object as a column keeps it (an audience): its values are objects, arrays or scalars.
 * Typed one level deep, not `Record<string, unknown>`: TypeORM's update types cannot take
 * `unknown` values, and a recursive JSON type is too deep for them.
 */
export type JsonObject = Record<string, object | string | number | boolean | null>;

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

  /** The holders the notification reaches; null: every holder and the shared pass. */
  @Column({ name: 'holder_ids', type: 'simple-json', nullable: true })
  holderIds!: string[] | null;

  /**
   * The segment of the pass whose holders it reaches, its audience read when the
   * notification is sent. At most one of `holderIds`, `audience` and `segmentId` is set.
   */
  @Column({ name: 'segment_id', type: 'varchar', length: 36, nullable: true })
  segmentId!: string | null;

  /**
   * The audience it reaches: as given, or for a segment the segment's audience as it was when
   * the notification was sent (null until then).
   */
  @Column({ type: 'simple-json', nullable: true })
  audience!: JsonObject | null;

  /**
   * The holders the audience (or segment) matched when the notification was sent, kept in
   * `audience_member` under the notification's id; null before, and for any other notification.
   * Set once, with that snapshot: a resumed delivery reaches the same holders.
   */
  @Column({ name: 'audience_size', type: 'int', nullable: true })
  audienceSize!: number | null;

  /**
   * The snapshot (of an audience's holders, or of the chosen `holderIds`) is written in batches
   * of holders in id order, each committed with this checkpoint (the last holder id written), so
   * a resumed worker goes on after it; null: none written yet. The audience the first batch read
   * is kept in `audience` for the rest. Chosen holders' snapshot is complete once this is the
   * last of their ids (`audienceSize` stays an audience's).
   */
  @Column({ name: 'snapshot_cursor', type: 'varchar', length: 36, nullable: true })
  snapshotCursor!: string | null;

  /**
   * The message is put on an audience's holders in batches of the snapshot, each committed with
   * this checkpoint (the last holder id messaged); null: none yet.
   */
  @Column({ name: 'prepare_cursor', type: 'varchar', length: 36, nullable: true })
  prepareCursor!: string | null;

  /** The pass version that carries this notification's message (set once, when prepared). */
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
