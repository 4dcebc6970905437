/**
 * Upper bounds (seconds, inclusive) of the buckets a fetch's delay falls in, from the version
 * being made (its push follows at once) to the device fetching it. Fixed buckets add up across
 * processes and rows in SQL, so percentiles need no sample kept per device.
 */
export const CONFIRMATION_BUCKETS = [
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300,
  600,
  1800,
  3600,
  21_600,
  86_400,
  Number.POSITIVE_INFINITY,
] as const;

export function bucketOf(seconds: number): number {
  const index = CONFIRMATION_BUCKETS.findIndex((bound) => seconds <= bound);
  return index === -1 ? CONFIRMATION_BUCKETS.length - 1 : index;
}

export interface ConfirmationSeconds {
  p50: number;
  p95: number;
}

/**
 * The 50th and 95th percentiles of delays counted per bucket, interpolated linearly within the
 * bucket they fall in (the open last bucket answers its lower bound); null when nothing was
 * counted. Accurate to the bucket's width: a second at the start, minutes after an hour.
 */
export function percentilesOf(counts: ReadonlyMap<number, number>): ConfirmationSeconds | null {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const at = (fraction: number): number => {
    const rank = fraction * total;
    let below = 0;
    for (let bucket = 0; bucket < CONFIRMATION_BUCKETS.length; bucket += 1) {
      const count = counts.get(bucket) ?? 0;
      if (count > 0 && below + count >= rank) {
        const lower = bucket === 0 ? 0 : CONFIRMATION_BUCKETS[bucket - 1];
        const upper = CONFIRMATION_BUCKETS[bucket];
        if (!Number.isFinite(upper)) return lower;
        return Math.round((lower + ((rank - below) / count) * (upper - lower)) * 10) / 10;
      }
      below += count;
    }
    return CONFIRMATION_BUCKETS[CONFIRMATION_BUCKETS.length - 2];
  };
  return { p50: at(0.5), p95: at(0.95) };
}
