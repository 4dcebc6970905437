interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that contend for one row (a pass's registrations take its row lock) done in turns of
 * many: while one turn of a key is being written, the items that arrive for it wait and are
 * written together in the next, so a burst costs a transaction per turn rather than per item,
 * and a lone item is written at once, with no added delay. Turns of different keys run side by
 * side. `write` answers each item of a turn, in order; a turn that fails fails its items.
 */
export class GroupCommit<T, R> {
  private readonly queues = new Map<string, Waiting<T, R>[]>();

  constructor(
    private readonly write: (key: string, items: T[]) => Promise<R[]>,
    private readonly maxPerTurn: number,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue !== undefined) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.queues.set(key, [{ item, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(key)!;
      if (queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      const turn = queue.splice(0, this.maxPerTurn);
      try {
        const results = await this.write(
          key,
          turn.map((waiting) => waiting.item),
        );
        turn.forEach((waiting, index) => waiting.resolve(results[index]));
      } catch (error) {
        for (const waiting of turn) waiting.reject(error);
      }
    }
  }
}
