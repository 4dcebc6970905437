import { Leased, WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/**
 * `open` until every device of its range is pushed and recorded, then `done`; `failed` when its
 * pushing kept failing and was given up (the devices it had not reached are not pushed).
 */
export type ShardState = 'open' | 'done' | 'failed';

/**
 * One slice of a notification's WalletA fan-out: the recipients whose registration id is after
 * `afterId` and up to `upToId` (the last shard has none: it takes every device registered later
 * too), in the order the fan-out reads them. Any worker claims an open shard under a lease and
 * pushes its range, checkpointing `fanoutCursor`; the notification stays Processing until every
 * shard is done.
 */
@Entity({ name: 'notification_shard' })
export class NotificationShard extends Leased(WorkspaceOwnedEntity) {
  @Column({ name: 'notification_id', type: 'varchar', length: 36 })
  notificationId!: string;

  /** 0, 1, …: unique per notification, so a repeated cut cannot add a second set. */
  @Column({ type: 'int' })
  position!: number;

  /** The range starts after this registration id; null: from the first. */
  @Column({ name: 'after_id', type: 'varchar', length: 36, nullable: true })
  afterId!: string | null;

  /** The range ends with this registration id; null: open-ended (the last shard). */
  @Column({ name: 'up_to_id', type: 'varchar', length: 36, nullable: true })
  upToId!: string | null;

  /** Registrations up to this one are pushed and recorded; a resumed shard goes on after it. */
  @Column({ name: 'fanout_cursor', type: 'varchar', length: 36, nullable: true })
  fanoutCursor!: string | null;

  @Column({ type: 'varchar', length: 16 })
  state!: ShardState;
}
