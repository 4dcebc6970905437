import { pooledRandomBytes } from '@app/core';
import type { Pass, PassMessage } from './entities/pass.entity';

const SLUG_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random URL-safe slug (no look-alike characters): 10 characters, about 58 bits. */
export function randomSlug(length = 10): string {
  const bytes = pooledRandomBytes(length * 2);
  let slug = '';
  for (let i = 0; slug.length < length && i < bytes.length; i++) {
    // Rejection sampling keeps every character equally likely.
    if (bytes[i] < 256 - (256 % SLUG_ALPHABET.length))
      slug += SLUG_ALPHABET[bytes[i] % SLUG_ALPHABET.length];
  }
  return slug.length === length ? slug : randomSlug(length);
}

/**
 * When a change holders see takes effect. Devices compare pass versions by `Last-Modified`,
 * which has whole seconds, so each such change lands in a later second than the one before
 * (at most a second ahead of the clock when changes come faster than one a second).
 */
export function holderChangeTime(previous: Date, now = new Date()): Date {
  const nextSecond = (Math.floor(previous.getTime() / 1000) + 1) * 1000;
  return new Date(Math.max(now.getTime(), nextSecond));
}

/**
 * The notification a holder's package shows: the newer of the pass's (sent to everyone) and the
 * holder's own (sent to chosen holders). Notification ids are UUIDv7, so the later id is the
 * later notification. The shared pass shows the pass's.
 */
export function shownMessage(
  pass: Pick<Pass, 'walletAMessage'>,
  holder?: { walletAMessage: PassMessage | null },
): PassMessage | null {
  const own = holder?.walletAMessage ?? null;
  const shared = pass.walletAMessage;
  if (own === null) return shared;
  if (shared === null) return own;
  return own.notificationId > shared.notificationId ? own : shared;
}
