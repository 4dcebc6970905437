import { bucketOf, CONFIRMATION_BUCKETS, percentilesOf } from './confirmation-buckets';

describe('confirmation buckets', () => {
  it('puts a delay in the first bucket whose bound holds it', () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(1.5)).toBe(1);
    expect(bucketOf(45)).toBe(CONFIRMATION_BUCKETS.indexOf(60));
    expect(bucketOf(10 * 86_400)).toBe(CONFIRMATION_BUCKETS.length - 1);
  });

  it('has no percentiles without a fetch', () => {
    expect(percentilesOf(new Map())).toBeNull();
    expect(percentilesOf(new Map([[3, 0]]))).toBeNull();
  });

  it('interpolates within the bucket a percentile falls in', () => {
    // 100 fetches: 50 within a second, 45 in (1, 2], 5 in (30, 60].
    const counts = new Map([
      [0, 50],
      [1, 45],
      [bucketOf(45), 5],
    ]);
    expect(percentilesOf(counts)).toEqual({ p50: 1, p95: 2 });
    counts.set(1, 44);
    counts.set(bucketOf(45), 6);
    expect(percentilesOf(counts)!.p95).toBeGreaterThan(30);
    expect(percentilesOf(counts)!.p95).toBeLessThanOrEqual(60);
  });

  it('answers the open bucket by its lower bound', () => {
    expect(percentilesOf(new Map([[CONFIRMATION_BUCKETS.length - 1, 3]]))).toEqual({
      p50: 86_400,
      p95: 86_400,
    });
  });
});
