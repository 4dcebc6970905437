/** A push's stream in flight and when it times out, linked into an {@link InFlightList}. */
export class InFlight {
  previous: InFlight | null = null;
  next: InFlight | null = null;
  listed = false;

  /** `expire` gives the push up and closes its stream; dropped once the push settles. */
  constructor(
    readonly deadline: number,
    public expire: (() => void) | null,
  ) {}
}

/**
 * The streams one APNs client has in flight, oldest first: a doubly linked list through the
 * entries themselves, so adding and removing allocate nothing.
 *
 * A `Set` did this before. With an entry added and one removed per push it rebuilds its table
 * every few hundred pushes, and a table V8 discarded in its old generation keeps pointing at the
 * entries it held, and through their `expire` at the streams, until the next full collection:
 * the young-generation collector counts those pointers as roots (see StreamTable). Here a
 * removed entry is unlinked, its own links and its `expire` cleared, so nothing a settled push
 * left behind keeps its stream alive.
 */
export class InFlightList {
  private head: InFlight | null = null;
  private tail: InFlight | null = null;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: InFlight): void {
    if (entry.listed) return;
    entry.listed = true;
    entry.previous = this.tail;
    entry.next = null;
    if (this.tail === null) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    this.count++;
  }

  /** Unlinks `entry` (a no-op when it is not listed) and drops its `expire`. */
  remove(entry: InFlight): void {
    entry.expire = null;
    if (!entry.listed) return;
    const { previous, next } = entry;
    if (previous === null) this.head = next;
    else previous.next = next;
    if (next === null) this.tail = previous;
    else next.previous = previous;
    entry.previous = null;
    entry.next = null;
    entry.listed = false;
    this.count--;
  }

  /**
   * Removes the entries whose deadline is `now` or earlier and calls their `expire`, oldest
   * first. Entries are added with one time allowed, so they are in deadline order: it stops at
   * the first one still in time.
   */
  expireDue(now: number): void {
    while (this.head !== null && this.head.deadline <= now) {
      const entry = this.head;
      const expire = entry.expire;
      this.remove(entry);
      expire?.();
    }
  }
}
