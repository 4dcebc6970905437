import { LeaseTime } from './lease';

describe('LeaseTime', () => {
  it('extends the lease only when less than the next call may take is left', async () => {
    const extensions: number[] = [];
    const extend = () => {
      extensions.push(Date.now());
      return Promise.resolve(true);
    };
    const time = new LeaseTime(60_000, new Date(Date.now() + 30_000));
    expect(await time.ensure(20_000, extend)).toBe(true);
    expect(extensions).toHaveLength(0);
    expect(await time.ensure(40_000, extend)).toBe(true);
    expect(extensions).toHaveLength(1);
    // Extended to a whole lease from the write: 40 s are left now.
    expect(await time.ensure(40_000, extend)).toBe(true);
    expect(extensions).toHaveLength(1);
  });

  it('extends a lease whose end it does not know, and says when the lease was lost', async () => {
    let calls = 0;
    const time = new LeaseTime(60_000, null);
    expect(
      await time.ensure(1000, () => {
        calls++;
        return Promise.resolve(false);
      }),
    ).toBe(false);
    expect(calls).toBe(1);
  });
});
