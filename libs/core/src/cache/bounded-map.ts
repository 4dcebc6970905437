/**
 * A `Map` that keeps at most `capacity` entries, dropping the least recently used first: a read
 * moves its entry to the back (a `Map` iterates in insertion order, so its first key is the one
 * used longest ago). For the in-process caches of hot paths, whose size must not grow with the
 * number of distinct callers.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`A bounded map holds at least one entry, not ${capacity}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) {
      const eldest = this.entries.keys().next();
      if (eldest.done !== true) this.entries.delete(eldest.value);
    }
    this.entries.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
