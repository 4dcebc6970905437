import { setTimeout as sleep } from 'node:timers/promises';
import { currentDatabaseTimeouts, withDatabaseTimeouts } from './mysql-deadlines';

describe('withDatabaseTimeouts', () => {
  it('gives the work its timeouts, nested calls adding to the outer ones', async () => {
    expect(currentDatabaseTimeouts()).toBeUndefined();
    const seen = await withDatabaseTimeouts({ queryMs: 500 }, async () => {
      await sleep(1);
      return withDatabaseTimeouts({ acquireMs: 100 }, async () => {
        await sleep(1);
        return currentDatabaseTimeouts();
      });
    });
    expect(seen).toEqual({ queryMs: 500, acquireMs: 100 });
    expect(currentDatabaseTimeouts()).toBeUndefined();
  });

  it('keeps the timeouts of work still running when an overlapping call ends first', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const long = withDatabaseTimeouts({ queryMs: null }, async () => {
      await held;
      await sleep(1);
      return currentDatabaseTimeouts();
    });
    await withDatabaseTimeouts({ queryMs: 2000 }, () => sleep(1));
    release();
    expect(await long).toEqual({ queryMs: null });
  });

  it('settles with the work, rejections included, and leaves nothing set afterwards', async () => {
    await expect(
      withDatabaseTimeouts({ queryMs: 1 }, () => Promise.reject(new Error('failed'))),
    ).rejects.toThrow('failed');
    await sleep(1);
    expect(currentDatabaseTimeouts()).toBeUndefined();
  });
});
