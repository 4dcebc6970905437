import { MemoryRateLimitStore } from './rate-limit.store';

describe('MemoryRateLimitStore', () => {
  afterEach(() => jest.useRealTimers());

  it('counts per key within a window and starts over when the window ends', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryRateLimitStore();
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    jest.setSystemTime(1_010_000);
    expect(await store.hit('a', 60_000)).toEqual({ count: 2, resetInMs: 50_000 });
    expect((await store.hit('b', 60_000)).count).toBe(1);
    jest.setSystemTime(1_060_000);
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
  });
});

describe('MemoryRateLimitStore.peek', () => {
  afterEach(() => jest.useRealTimers());

  it('reads the open window without counting, and nothing once it has ended', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryRateLimitStore();
    expect(await store.peek('a')).toBeNull();
    await store.hit('a', 60_000);
    jest.setSystemTime(1_020_000);
    expect(await store.peek('a')).toEqual({ count: 1, resetInMs: 40_000 });
    expect(await store.peek('a')).toEqual({ count: 1, resetInMs: 40_000 });
    jest.setSystemTime(1_060_000);
    expect(await store.peek('a')).toBeNull();
  });
});
