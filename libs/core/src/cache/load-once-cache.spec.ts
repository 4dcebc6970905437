import { BoundedMap } from './bounded-map';
import { LoadOnceCache } from './load-once-cache';

describe('LoadOnceCache', () => {
  it('shares one load among the callers of a key, and keeps its value', async () => {
    const cache = new LoadOnceCache<string, number>(new BoundedMap(10));
    let loads = 0;
    const load = () => new Promise<number>((resolve) => setImmediate(() => resolve(++loads)));
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('b', load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('keeps no failed load: the next caller loads again', async () => {
    const cache = new LoadOnceCache<string, number>(new BoundedMap(10));
    await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('a', () => Promise.resolve(7))).toBe(7);
  });

  it('hands out a value heavier than the whole bound, without keeping it', async () => {
    const cache = new LoadOnceCache<string, string>(
      new BoundedMap(10, { maxWeight: 3, weigh: (value) => value.length }),
    );
    let loads = 0;
    const load = () => Promise.resolve(`${++loads}`.repeat(4));
    expect(await cache.get('a', load)).toBe('1111');
    expect(await cache.get('a', load)).toBe('2222');
  });
});
