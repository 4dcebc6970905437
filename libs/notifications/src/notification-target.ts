import { chosenInOrder } from '@app/audiences';
import { InvalidInputError } from '@app/core';
import type { Notification } from './entities/notification.entity';

/**
 * Whom a notification reaches: chosen holders of its pass, an audience,
 * a segment of its pass, or (all three null) every holder and the shared pass.
 */
export type NotificationTarget = Pick<Notification, 'holderIds' | 'audience' | 'segmentId'>;

const TARGET_FIELDS = ['holderIds', 'audience', 'segmentId'] as const;

export const EVERYONE: NotificationTarget = { holderIds: null, audience: null, segmentId: null };

/** The three fields as a create or an update gives them: absent, null (none) or a value. */
export type TargetInput = { [K in keyof NotificationTarget]?: NotificationTarget[K] };

/**
 * The target after a create (`current`: {@link EVERYONE}) or an update of `current`: a field
 * given a value replaces the whole target (the other two are cleared); one given null clears
 * itself; an absent one is kept. More than one given a value is a 400 keyed by each of them.
 */
export function nextTarget(
  input: TargetInput,
  current: NotificationTarget = EVERYONE,
): NotificationTarget {
  const given = TARGET_FIELDS.filter(
    (field) => input[field] !== undefined && input[field] !== null,
  );
  if (given.length > 1) {
    const message = `give only one of ${TARGET_FIELDS.join(', ')}`;
    throw new InvalidInputError(Object.fromEntries(given.map((field) => [field, message])));
  }
  if (given.length === 1) return { ...EVERYONE, [given[0]]: input[given[0]] };
  return {
    holderIds: input.holderIds === null ? null : current.holderIds,
    audience: input.audience === null ? null : current.audience,
    segmentId: input.segmentId === null ? null : current.segmentId,
  };
}

/** Whether the notification reaches the holders of an audience (given, or a segment's). */
export function targetsAudience(notification: NotificationTarget): boolean {
  return notification.audience !== null || notification.segmentId !== null;
}

/**
 * Whether the holders a notification reaches are written down (always, when it reaches the whole
 * pass): an audience's once `audienceSize` is set, chosen holders' once `snapshotCursor` is the
 * last of their ids in order (the worker writes them in that order).
 */
export function snapshotTaken(
  notification: NotificationTarget & Pick<Notification, 'audienceSize' | 'snapshotCursor'>,
): boolean {
  if (notification.holderIds !== null) {
    return notification.snapshotCursor === lastChosen(notification.holderIds);
  }
  return !targetsAudience(notification) || notification.audienceSize !== null;
}

function lastChosen(holderIds: readonly string[]): string | null {
  return chosenInOrder(holderIds).at(-1) ?? null;
}

/**
 * Whom a channel delivers a notification to: the whole pass (its shared pass and every holder),
 * or the holders written into `audience_member` under the notification's id. Channels tell only
 * these two apart, so a wallet platform knows nothing of how holders were chosen.
 */
export type Recipients =
  | { kind: 'pass' }
  | {
      kind: 'snapshot';
      notificationId: string;
      /** How many holders it holds at most, once known: how a channel best reads them. */
      size: number | null;
    };

/**
 * The one place where a notification's target becomes its recipients: chosen holders, an audience
 * and a segment all become the snapshot the notification worker writes before any channel runs
 * (`NotificationWorker`); no target is the whole pass.
 */
export function recipientsOf(
  notification: NotificationTarget & Pick<Notification, 'id' | 'audienceSize'>,
): Recipients {
  const { id: notificationId, holderIds, audienceSize } = notification;
  if (holderIds !== null) {
    return { kind: 'snapshot', notificationId, size: chosenInOrder(holderIds).length };
  }
  return targetsAudience(notification)
    ? { kind: 'snapshot', notificationId, size: audienceSize }
    : { kind: 'pass' };
}
