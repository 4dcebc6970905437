/**
 * Exponential backoff with full jitter: a random delay in [0, min(max, base · 2^(retry−1))).
 * `retry` counts from 1 (the wait before the second try).
 */
export function backoffDelay(
  retry: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}
