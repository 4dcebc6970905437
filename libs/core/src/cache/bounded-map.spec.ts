import { BoundedMap } from './bounded-map';

describe('BoundedMap', () => {
  it('drops the least recently used entry once full', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1); // a is now the most recently used
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('replaces a key in place without dropping another', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10);
    expect(map.size).toBe(2);
    expect(map.get('a')).toBe(10);
    expect(map.get('b')).toBe(2);
  });

  it('forgets deleted and cleared entries', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1).set('b', 2);
    expect(map.delete('a')).toBe(true);
    expect(map.get('a')).toBeUndefined();
    map.clear();
    expect(map.size).toBe(0);
  });

  it('keeps the total weight within its bound, dropping the least recently used first', () => {
    const bytes = { maxWeight: 10, weigh: (value: string) => value.length };
    const map = new BoundedMap<string, string>(100, bytes);
    map.set('a', 'aaaa').set('b', 'bbbb');
    expect(map.get('a')).toBe('aaaa'); // b is now the least recently used
    map.set('c', 'cccc');
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual(['aaaa', undefined, 'cccc']);
    // Replacing a value counts only the new one.
    map.set('a', 'aaaaaa');
    expect([map.get('a'), map.get('c'), map.size]).toEqual(['aaaaaa', 'cccc', 2]);
    // A value heavier than the bound alone is not kept, and drops nothing.
    map.set('d', 'd'.repeat(11));
    expect([map.get('d'), map.size]).toEqual([undefined, 2]);
    map.clear();
    map.set('e', 'e'.repeat(10));
    expect(map.get('e')).toBe('e'.repeat(10));
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedMap(0)).toThrow(RangeError);
  });
});
