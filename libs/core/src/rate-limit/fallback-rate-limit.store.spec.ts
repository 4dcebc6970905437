import { FallbackRateLimitStore, type FallbackLogger } from './fallback-rate-limit.store';
import { MemoryRateLimitStore, type RateLimitHit, type RateLimitStore } from './rate-limit.store';

const TIMINGS = { deadlineMs: 500, retryAfterMs: 5000 };

/** A shared store that answers as a memory store, hangs (a frozen Redis) or rejects, on demand. */
class ScriptedStore implements RateLimitStore {
  behaviour: 'answer' | 'hang' | 'reject' = 'answer';
  calls = 0;
  private readonly counters = new MemoryRateLimitStore();

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    return this.run(() => this.counters.hit(key, windowMs));
  }

  peek(key: string): Promise<RateLimitHit | null> {
    return this.run(() => this.counters.peek(key));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private run<T>(answer: () => Promise<T>): Promise<T> {
    this.calls += 1;
    if (this.behaviour === 'hang') return new Promise<T>(() => undefined);
    if (this.behaviour === 'reject') return Promise.reject(new Error('connection refused'));
    return answer();
  }
}

/** Lets promises that need no timer settle. */
async function microtasks(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

function fakeLogger(): FallbackLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (_context: unknown, message?: unknown) => lines.push(`warn: ${String(message)}`),
    log: (message: unknown) => lines.push(`log: ${String(message)}`),
  };
}

describe('FallbackRateLimitStore', () => {
  let shared: ScriptedStore;
  let logger: ReturnType<typeof fakeLogger>;
  let store: FallbackRateLimitStore;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    shared = new ScriptedStore();
    logger = fakeLogger();
    store = new FallbackRateLimitStore(shared, TIMINGS, logger);
  });
  afterEach(() => jest.useRealTimers());

  it('counts in the shared store while it answers, and logs nothing', async () => {
    expect((await store.hit('a', 60_000)).count).toBe(1);
    expect((await store.hit('a', 60_000)).count).toBe(2);
    expect(await store.peek('a')).toEqual({ count: 2, resetInMs: 60_000 });
    expect(shared.calls).toBe(3);
    expect(logger.lines).toEqual([]);
  });

  it('counts a call the shared store does not answer within the deadline locally', async () => {
    shared.behaviour = 'hang';
    const hit = store.hit('a', 60_000);
    await jest.advanceTimersByTimeAsync(TIMINGS.deadlineMs);
    // The local window opens when the call falls back.
    expect(await hit).toEqual({ count: 1, resetInMs: 60_000 });
    expect(logger.lines).toEqual([
      'warn: Redis did not answer; rate limits count per instance until it does',
    ]);
  });

  it('skips the shared store during the back-off, so the limit holds without waiting', async () => {
    shared.behaviour = 'reject';
    expect((await store.hit('a', 60_000)).count).toBe(1);
    expect(shared.calls).toBe(1);
    // Answered at once (no timer advanced), counted on from the local window, Redis not asked.
    for (let i = 2; i <= 10; i++) expect((await store.hit('a', 60_000)).count).toBe(i);
    expect(await store.peek('a')).toMatchObject({ count: 10 });
    expect(shared.calls).toBe(1);
    expect(logger.lines).toHaveLength(1);
  });

  it('probes with one call once the back-off has passed, the others staying local', async () => {
    shared.behaviour = 'hang';
    const first = store.hit('a', 60_000);
    await jest.advanceTimersByTimeAsync(TIMINGS.deadlineMs);
    await first;
    await jest.advanceTimersByTimeAsync(TIMINGS.retryAfterMs);

    const probe = store.hit('a', 60_000);
    // While the probe waits, other calls neither wait nor ask the shared store.
    expect((await store.hit('a', 60_000)).count).toBe(2);
    expect(shared.calls).toBe(2);
    await jest.advanceTimersByTimeAsync(TIMINGS.deadlineMs);
    expect((await probe).count).toBe(3);
    // Still frozen: one warning in all, and a new back-off from the failed probe.
    expect(logger.lines).toHaveLength(1);
    await store.hit('a', 60_000);
    expect(shared.calls).toBe(2);
  });

  it('goes back to the shared store when a probe is answered, logging it once', async () => {
    shared.behaviour = 'reject';
    await store.hit('a', 60_000);
    await store.hit('a', 60_000);
    shared.behaviour = 'answer';
    // Within the back-off the shared store is not asked even though it would answer.
    expect((await store.hit('a', 60_000)).count).toBe(3);
    expect(shared.calls).toBe(1);

    jest.advanceTimersByTime(TIMINGS.retryAfterMs);
    // The probe's answer is the shared count (Redis did not see the local calls).
    expect((await store.hit('a', 60_000)).count).toBe(1);
    expect((await store.hit('a', 60_000)).count).toBe(2);
    expect(shared.calls).toBe(3);
    expect(logger.lines).toEqual([
      'warn: Redis did not answer; rate limits count per instance until it does',
      'log: Redis answers again; rate limits are shared between instances again',
    ]);

    // A later failure starts local counting afresh (the old local counts were dropped).
    shared.behaviour = 'reject';
    expect((await store.hit('a', 60_000)).count).toBe(1);
    expect(logger.lines).toHaveLength(3);
  });

  it('answers every call of a long freeze within the deadline, most at once', async () => {
    shared.behaviour = 'hang';
    let waited = 0;
    for (let second = 0; second < 20; second++) {
      for (let i = 0; i < 10; i++) {
        let settled = false;
        const hit = store.hit(`caller-${i}`, 60_000).finally(() => (settled = true));
        await microtasks();
        if (!settled) {
          waited += 1;
          await jest.advanceTimersByTimeAsync(TIMINGS.deadlineMs);
        }
        await hit;
        expect(settled).toBe(true);
      }
      await jest.advanceTimersByTimeAsync(1000);
    }
    // The first call and one probe per back-off waited; the other 190 or so did not.
    expect(waited).toBeLessThanOrEqual(1 + Math.ceil(20_000 / TIMINGS.retryAfterMs) + 2);
    expect(logger.lines).toHaveLength(1);
  });
});
