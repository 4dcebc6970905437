import { GroupCommit } from './group-commit';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes a lone item at once, and what arrives meanwhile in the next turn', async () => {
    const turns: number[][] = [];
    let release!: () => void;
    const commit = new GroupCommit<number, number>(async (_key, items) => {
      turns.push(items);
      if (turns.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => item * 10);
    }, 100);
    const first = commit.submit('pass', 1);
    await tick();
    expect(turns).toEqual([[1]]);
    const later = [2, 3, 4].map((item) => commit.submit('pass', item));
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
    expect(turns).toEqual([[1], [2, 3, 4]]);
  });

  it('runs turns of different keys side by side and caps a turn', async () => {
    const turns: string[] = [];
    const commit = new GroupCommit<number, number>(async (key, items) => {
      turns.push(`${key}:${items.join(',')}`);
      await tick();
      return items;
    }, 2);
    const results = await Promise.all([
      commit.submit('a', 1),
      commit.submit('b', 1),
      commit.submit('a', 2),
      commit.submit('a', 3),
      commit.submit('a', 4),
    ]);
    expect(results).toEqual([1, 1, 2, 3, 4]);
    expect(turns).toEqual(['a:1', 'b:1', 'a:2,3', 'a:4']);
  });

  it('fails the items of a failed turn only', async () => {
    let calls = 0;
    const commit = new GroupCommit<number, number>(async (_key, items) => {
      calls += 1;
      await tick();
      if (calls === 1) throw new Error('deadlock');
      return items;
    }, 10);
    const first = commit.submit('pass', 1);
    const second = commit.submit('pass', 2);
    await expect(first).rejects.toThrow('deadlock');
    await expect(second).resolves.toBe(2);
  });
});
