import { backoffDelay } from '@app/core';

/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

export interface RetryRules {
  /** Ceiling of the first retry's random delay; it doubles per retry up to an hour. */
  retryBaseMs: number;
  /** How long after the event it is retried. */
  retryForMs: number;
}

/**
 * When to try a delivery again after its `attempts`-th attempt failed: exponential backoff with
 * full jitter (the first retry within `retryBaseMs`, then up to twice as long each time, at most
 * an hour apart), never later than the end of the retry window, which gets one last attempt.
 * Null once the window has closed: the delivery has failed for good.
 */
export function nextAttemptTime(
  attempts: number,
  createdTime: Date,
  now: Date,
  rules: RetryRules,
  random: () => number = Math.random,
): Date | null {
  const deadline = createdTime.getTime() + rules.retryForMs;
  if (now.getTime() >= deadline) return null;
  const delay = backoffDelay(attempts, rules.retryBaseMs, MAX_RETRY_DELAY_MS, random);
  return new Date(Math.min(now.getTime() + delay, deadline));
}
