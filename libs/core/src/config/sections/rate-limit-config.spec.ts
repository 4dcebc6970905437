import { readSection } from '../env-reader';
import { readRateLimitConfig } from './rate-limit-config';

describe('readRateLimitConfig', () => {
  it('limits failures and users by default, the user at twice the per-caller rate', () => {
    expect(readSection({}, readRateLimitConfig).value).toMatchObject({
      perMinute: 600,
      perUserPerMinute: 1200,
      authFailures: { perIp: 30, windowSeconds: 300 },
      login: { failuresPerIp: 20, failuresPerEmail: 5, windowSeconds: 900, backoffMaxSeconds: 60 },
    });
    expect(
      readSection({ RATE_LIMIT_PER_MINUTE: '50' }, readRateLimitConfig).value.perUserPerMinute,
    ).toBe(100);
  });

  it('takes a Redis URL only', () => {
    expect(readSection({ REDIS_URL: 'http://cache:6379' }, readRateLimitConfig).problems).toEqual([
      'REDIS_URL must use redis: or rediss: (got "http://cache:6379")',
    ]);
  });
});
