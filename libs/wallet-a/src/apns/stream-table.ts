import type * as http2 from 'node:http2';

/** HTTP/2 stream identifiers are 31-bit; 0 is the connection itself, never a stream. */
const MAX_STREAM_ID = 2 ** 31 - 1;
const INITIAL_CAPACITY = 64;

/**
 * A session's streams by id, in place of the `Map` node:http2 keeps them in (see
 * {@link adoptStreamTable}). It holds what a `Map` holds and answers what node:http2 asks of
 * one, without what made every APNs stream outlive its push.
 *
 * A `Map` with an entry added and one deleted per request rebuilds its table every few hundred
 * requests. Once the table is in V8's old generation (any full collection puts it there) each
 * new table is made there too, and the one it replaces still points at the streams it held.
 * Until the next full collection V8's young-generation collector counts pointers from old
 * objects, dead or not, as roots, so those streams, short-lived as they are, are moved to the
 * old generation: about a third of every request's objects under load. That is how the
 * measurements read (BENCHMARKS.md, "bench:h2-promotion"): a plain script that keeps its
 * objects in a `Map` that way has them promoted, and a session with this table in place of
 * node:http2's `Map` does not.
 *
 * Here the ids and streams sit in two arrays, found by linear probing, and a delete clears its
 * slot, shifting back the entries after it: no emptied slot keeps a stream. The arrays are only
 * replaced to grow, and are emptied first. Iteration is in slot order rather than insertion
 * order (node:http2 only iterates to close or destroy every stream) and walks a copy, so the
 * callback may delete, as destroying a stream does.
 */
export class StreamTable<V> implements Map<number, V> {
  /** 0 marks an empty slot. */
  private ids = new Int32Array(INITIAL_CAPACITY);
  private streams: Array<V | undefined> = new Array<V | undefined>(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  private count = 0;

  readonly [Symbol.toStringTag] = 'StreamTable';

  get size(): number {
    return this.count;
  }

  get(id: number): V | undefined {
    if (!isStreamId(id)) return undefined;
    const slot = this.slotOf(id);
    return this.ids[slot] === id ? this.streams[slot] : undefined;
  }

  has(id: number): boolean {
    return isStreamId(id) && this.ids[this.slotOf(id)] === id;
  }

  set(id: number, stream: V): this {
    if (!isStreamId(id)) {
      throw new RangeError(`A stream id is an integer from 1 to ${MAX_STREAM_ID} (got ${id})`);
    }
    if (2 * (this.count + 1) > this.ids.length) this.grow();
    const slot = this.slotOf(id);
    if (this.ids[slot] !== id) {
      this.ids[slot] = id;
      this.count++;
    }
    this.streams[slot] = stream;
    return this;
  }

  delete(id: number): boolean {
    if (!isStreamId(id)) return false;
    let empty = this.slotOf(id);
    if (this.ids[empty] !== id) return false;
    this.clearSlot(empty);
    this.count--;
    // Later entries of the same probe run move back into the gap, so every entry stays
    // reachable from its home slot without leaving a marker behind.
    for (let slot = (empty + 1) & this.mask; this.ids[slot] !== 0; slot = (slot + 1) & this.mask) {
      const home = this.homeOf(this.ids[slot]);
      const reachableWhereItIs =
        empty < slot ? home > empty && home <= slot : home > empty || home <= slot;
      if (reachableWhereItIs) continue;
      this.ids[empty] = this.ids[slot];
      this.streams[empty] = this.streams[slot];
      this.clearSlot(slot);
      empty = slot;
    }
    return true;
  }

  clear(): void {
    this.ids.fill(0);
    this.streams.fill(undefined);
    this.count = 0;
  }

  forEach(
    callback: (stream: V, id: number, table: Map<number, V>) => void,
    thisArg?: unknown,
  ): void {
    for (const [id, stream] of this.entries()) callback.call(thisArg, stream, id, this);
  }

  entries(): MapIterator<[number, V]> {
    const entries: Array<[number, V]> = [];
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (this.ids[slot] !== 0) entries.push([this.ids[slot], this.streams[slot] as V]);
    }
    return entries[Symbol.iterator]();
  }

  keys(): MapIterator<number> {
    return Array.from(this.entries(), ([id]) => id)[Symbol.iterator]();
  }

  values(): MapIterator<V> {
    return Array.from(this.entries(), ([, stream]) => stream)[Symbol.iterator]();
  }

  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }

  /** Where `id` is, or the empty slot where it would go. */
  private slotOf(id: number): number {
    let slot = this.homeOf(id);
    while (this.ids[slot] !== 0 && this.ids[slot] !== id) slot = (slot + 1) & this.mask;
    return slot;
  }

  /** A client's ids are odd and a server's even, each rising by 2: halved, they fill slots in turn. */
  private homeOf(id: number): number {
    return (id >>> 1) & this.mask;
  }

  private clearSlot(slot: number): void {
    this.ids[slot] = 0;
    this.streams[slot] = undefined;
  }

  private grow(): void {
    const { ids, streams } = this;
    const capacity = ids.length * 2;
    this.ids = new Int32Array(capacity);
    this.streams = new Array<V | undefined>(capacity);
    this.mask = capacity - 1;
    this.count = 0;
    for (let slot = 0; slot < ids.length; slot++) {
      if (ids[slot] !== 0) this.set(ids[slot], streams[slot] as V);
    }
    // The old array may already be in the old generation: emptied, it keeps no stream alive.
    streams.fill(undefined);
  }
}

function isStreamId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_STREAM_ID;
}

/**
 * The streams a session has made but not yet numbered, in place of the `Set` node:http2 keeps
 * them in. A client stream is in it from `request()` until the session numbers it, at once on a
 * connected session: a `Set` churned that way builds a new table every few requests, in the old
 * generation (where the long-lived session's table is), so every push left one there as
 * garbage. Here they sit in an array whose removed slots are cleared. Order is not kept
 * (node:http2 only iterates to cancel or destroy them all), and iteration walks a copy, so the
 * callback may delete, as destroying a stream does.
 */
export class PendingStreams<V> {
  private readonly streams: V[] = [];

  readonly [Symbol.toStringTag] = 'PendingStreams';

  get size(): number {
    return this.streams.length;
  }

  has(stream: V): boolean {
    return this.streams.includes(stream);
  }

  add(stream: V): this {
    if (!this.streams.includes(stream)) this.streams.push(stream);
    return this;
  }

  delete(stream: V): boolean {
    const at = this.streams.indexOf(stream);
    if (at === -1) return false;
    const last = this.streams.pop() as V;
    if (at < this.streams.length) this.streams[at] = last;
    return true;
  }

  clear(): void {
    this.streams.length = 0;
  }

  forEach(callback: (stream: V, again: V, set: this) => void, thisArg?: unknown): void {
    for (const stream of [...this.streams]) callback.call(thisArg, stream, stream, this);
  }

  values(): IterableIterator<V> {
    return [...this.streams][Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<V> {
    return this.values();
  }
}

/**
 * Gives `session` a {@link StreamTable} in place of node:http2's own `Map` of its streams, and
 * {@link PendingStreams} in place of its `Set` of streams not yet numbered: private fields of
 * the session's state (Node 20's `lib/internal/http2/core.js`). Call it right after
 * `http2.connect`, before any request. Returns false, changing nothing, when the session does
 * not have both fields, empty (another Node version): the session then works as Node made it,
 * only with more garbage for V8 to collect.
 */
export function adoptStreamTable(session: http2.ClientHttp2Session): boolean {
  const stateKey = Object.getOwnPropertySymbols(session).find(
    (symbol) => symbol.description === 'state',
  );
  if (stateKey === undefined) return false;
  const state: unknown = (session as unknown as Record<symbol, unknown>)[stateKey];
  if (typeof state !== 'object' || state === null) return false;
  if (!('streams' in state) || !isEmptyCollection(state.streams, ['get', 'set'])) return false;
  if (!('pendingStreams' in state) || !isEmptyCollection(state.pendingStreams, ['add', 'has'])) {
    return false;
  }
  state.streams = new StreamTable<http2.ClientHttp2Stream>();
  state.pendingStreams = new PendingStreams<http2.ClientHttp2Stream>();
  return true;
}

/**
 * Node's internals keep their streams in a `SafeMap` and a `SafeSet`, whose prototype chains
 * are cut off (so `instanceof` is false): what counts is that each is used as an empty
 * collection with these methods.
 */
function isEmptyCollection(value: unknown, methods: string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    [...methods, 'delete', 'forEach'].every((name) => typeof candidate[name] === 'function') &&
    candidate.size === 0
  );
}
