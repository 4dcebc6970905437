/** A bound on the total weight of a {@link BoundedMap}'s values (bytes, for buffers). */
export interface WeightBound<V> {
  maxWeight: number;
  weigh(value: V): number;
}

/**
 * A `Map` that keeps at most `capacity` entries, dropping the least recently used first: a read
 * moves its entry to the back (a `Map` iterates in insertion order, so its first key is the one
 * used longest ago). For the in-process caches of hot paths, whose size must not grow with the
 * number of distinct callers. Given a {@link WeightBound}, it also keeps the values' total
 * weight within `maxWeight`, and keeps no value heavier than that alone. Every in-process cache
 * of the service sits on it (directly or through `LoadOnceCache`), so each has a bound.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly capacity: number,
    private readonly bound?: WeightBound<V>,
  ) {
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
    this.delete(key);
    const weight = this.bound?.weigh(value) ?? 0;
    if (this.bound !== undefined && weight > this.bound.maxWeight) return this;
    for (const [eldest, eldestValue] of this.entries) {
      const full =
        this.entries.size >= this.capacity ||
        (this.bound !== undefined && this.weight + weight > this.bound.maxWeight);
      if (!full) break;
      this.entries.delete(eldest);
      this.weight -= this.bound?.weigh(eldestValue) ?? 0;
    }
    this.entries.set(key, value);
    this.weight += weight;
    return this;
  }

  delete(key: K): boolean {
    const value = this.entries.get(key);
    if (value === undefined) return false;
    this.entries.delete(key);
    this.weight -= this.bound?.weigh(value) ?? 0;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
