import { checkpointedBatches, CheckpointRefused } from './checkpointed-batches';

describe('checkpointedBatches', () => {
  it('runs batches until one says it was the last, with a turn of the event loop between', async () => {
    const order: string[] = [];
    let left = 3;
    const end = await checkpointedBatches({ queryMs: 1000 }, () => {
      order.push(`batch ${left}`);
      // Runs when the loop gives the event loop a turn, before the next batch.
      setImmediate(() => order.push('turn'));
      left -= 1;
      return Promise.resolve(left === 0);
    });
    expect(end).toBe('done');
    expect(order).toEqual(['batch 3', 'turn', 'batch 2', 'turn', 'batch 1']);
  });

  it('stops before a batch once the process is stopping', async () => {
    let batches = 0;
    const end = await checkpointedBatches({ queryMs: 1000, stopping: () => batches === 2 }, () => {
      batches += 1;
      return Promise.resolve(false);
    });
    expect(end).toBe('stopped');
    expect(batches).toBe(2);
  });

  it('ends as lost on a refused checkpoint, and rethrows any other error', async () => {
    let batches = 0;
    const lost = await checkpointedBatches({ queryMs: 1000 }, () => {
      batches += 1;
      return batches === 2 ? Promise.reject(new CheckpointRefused()) : Promise.resolve(false);
    });
    expect(lost).toBe('lost');
    expect(batches).toBe(2);
    await expect(
      checkpointedBatches({ queryMs: 1000 }, () => Promise.reject(new Error('deadline'))),
    ).rejects.toThrow('deadline');
  });
});
