import { backoffDelay } from './backoff';

describe('backoffDelay (exponential, full jitter)', () => {
  const almostOne = () => 0.999999;

  it('is 0 when the random draw is 0', () => {
    for (let retry = 1; retry < 10; retry++)
      expect(backoffDelay(retry, 200, 10_000, () => 0)).toBe(0);
  });

  it('doubles its ceiling with each retry, from the base', () => {
    expect(backoffDelay(1, 200, 10_000, almostOne)).toBe(199);
    expect(backoffDelay(2, 200, 10_000, almostOne)).toBe(399);
    expect(backoffDelay(3, 200, 10_000, almostOne)).toBe(799);
    expect(backoffDelay(4, 200, 10_000, almostOne)).toBe(1599);
  });

  it('never goes above the maximum, even for many retries', () => {
    expect(backoffDelay(10, 200, 10_000, almostOne)).toBe(9999);
    expect(backoffDelay(5000, 200, 10_000, almostOne)).toBe(9999);
  });

  it('stays within [0, ceiling) for random draws', () => {
    for (let i = 0; i < 1000; i++) {
      const retry = 1 + (i % 8);
      const delay = backoffDelay(retry, 50, 3000);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(3000, 50 * 2 ** (retry - 1)));
    }
  });
});
