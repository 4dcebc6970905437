import { MAX_RETRY_DELAY_MS, nextAttemptTime } from './retry-schedule';

const HOUR = 3600_000;
const RULES = { retryBaseMs: 10_000, retryForMs: 24 * HOUR };

describe('Webhook retry schedule', () => {
  const created = new Date('2026-11-24T00:00:00Z');
  const at = (ms: number) => new Date(created.getTime() + ms);
  const delay = (attempts: number, random: number, now = at(0)) =>
    nextAttemptTime(attempts, created, now, RULES, () => random)!.getTime() - now.getTime();

  it('retries first within 10 s, with full jitter', () => {
    expect(delay(1, 0)).toBe(0);
    expect(delay(1, 0.5)).toBe(5_000);
    expect(delay(1, 0.999999)).toBeLessThan(10_000);
  });

  it('doubles the ceiling per attempt, up to an hour', () => {
    const almostOne = 1 - Number.EPSILON;
    const ceilings = [1, 2, 3, 4, 5, 9, 10, 30].map((attempts) => delay(attempts, almostOne) + 1);
    expect(ceilings).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 2_560_000, HOUR, HOUR]);
    expect(MAX_RETRY_DELAY_MS).toBe(HOUR);
  });

  it('tries once more at the end of the 24 h window, then gives up', () => {
    const late = at(24 * HOUR - 1000);
    expect(nextAttemptTime(30, created, late, RULES, () => 0.9)).toEqual(at(24 * HOUR));
    expect(nextAttemptTime(31, created, at(24 * HOUR), RULES, () => 0.9)).toBeNull();
    expect(nextAttemptTime(31, created, at(25 * HOUR), RULES, () => 0)).toBeNull();
  });

  it('spreads a day of retries over about 55 attempts (mean delays)', () => {
    // With the mean delay (half the ceiling), how many attempts fit in 24 h.
    let now = at(0);
    let attempts = 1;
    for (;;) {
      const next = nextAttemptTime(attempts, created, now, RULES, () => 0.5);
      if (next === null) break;
      now = next;
      attempts += 1;
    }
    expect(attempts).toBeGreaterThan(40);
    expect(attempts).toBeLessThan(60);
  });
});
