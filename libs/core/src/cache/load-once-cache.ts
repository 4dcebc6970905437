import type { BoundedMap } from './bounded-map';

/**
 * Values that are costly to make (a signed package, a resized image), kept in a
 * {@link BoundedMap}: callers asking for a key not kept yet share one load, and each keeps its
 * result. A failed load is kept by no one, so the next caller loads again.
 */
export class LoadOnceCache<K, V> {
  private readonly loading = new Map<K, Promise<V>>();

  constructor(private readonly kept: BoundedMap<K, V>) {}

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    let pending = this.loading.get(key);
    if (pending === undefined) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    const value = await pending;
    this.kept.set(key, value);
    return value;
  }
}
