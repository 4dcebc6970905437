import { Logger } from '@nestjs/common';
import type { Pool, PoolConnection, PoolOptions } from 'mysql2';
import { NO_READ_REPLICA_CODE, PrimaryAndReplicaPools, REPLICA_REST_MS } from './replica-pools';

type Callback = (error: Error | null, connection?: PoolConnection) => void;

/** A pool that answers every getConnection with its own name, or fails while told to. */
class FakePool {
  failing = false;
  ended = false;
  asked = 0;

  constructor(readonly name: string) {}

  getConnection(callback: Callback): void {
    this.asked++;
    if (this.failing) {
      callback(Object.assign(new Error(`${this.name} refused`), { code: 'ECONNREFUSED' }));
    } else {
      callback(null, { name: this.name } as unknown as PoolConnection);
    }
  }

  end(callback: (error: Error | null) => void): void {
    this.ended = true;
    callback(null);
  }
}

/** The pools TypeORM would add for a primary and `replicas` replicas, on a clock of its own. */
function primaryAnd(replicas: number) {
  let now = 0;
  const fakes = new Map<string, FakePool>();
  const pools = new PrimaryAndReplicaPools(
    (options: PoolOptions) => {
      const pool = new FakePool(`${options.host}`);
      fakes.set(pool.name, pool);
      return pool as unknown as Pool;
    },
    () => now,
  );
  pools.add('MASTER', { host: 'primary', port: 3306 });
  for (let i = 0; i < replicas; i++) pools.add(`SLAVE${i}`, { host: `replica${i}`, port: 3306 });
  /** The name of the pool whose connection `pattern` gave. */
  const connect = (pattern: string) =>
    new Promise<string>((resolve, reject) =>
      pools.getConnection(pattern, (error, connection) =>
        error === null ? resolve((connection as unknown as { name: string }).name) : reject(error),
      ),
    );
  return { pools, fakes, connect, pass: (ms: number) => (now += ms) };
}

describe('PrimaryAndReplicaPools', () => {
  let warned: jest.SpyInstance;
  let logged: jest.SpyInstance;
  beforeEach(() => {
    warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it("gives the primary's connections for MASTER and the replicas' in turn for SLAVE*", async () => {
    const { connect } = primaryAnd(2);
    expect(await connect('MASTER')).toBe('primary');
    expect([await connect('SLAVE*'), await connect('SLAVE*'), await connect('SLAVE*')]).toEqual([
      'replica0',
      'replica1',
      'replica0',
    ]);
    await expect(connect('SLAVE0')).rejects.toThrow('No database pool named SLAVE0');
  });

  it('leaves a replica that gave no connection out, then lets one read try it again', async () => {
    const { connect, fakes, pass } = primaryAnd(2);
    fakes.get('replica0')!.failing = true;
    await expect(connect('SLAVE*')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // Left out: every read goes to the other one, and replica0 is not asked.
    const asked = fakes.get('replica0')!.asked;
    for (let i = 0; i < 4; i++) expect(await connect('SLAVE*')).toBe('replica1');
    expect(fakes.get('replica0')!.asked).toBe(asked);

    pass(REPLICA_REST_MS);
    fakes.get('replica0')!.failing = false;
    const next = [await connect('SLAVE*'), await connect('SLAVE*')];
    expect(next.sort()).toEqual(['replica0', 'replica1']);
  });

  it('fails a replica read at once while every replica is left out, never the primary', async () => {
    const { connect, fakes, pass } = primaryAnd(1);
    const replica = fakes.get('replica0')!;
    replica.failing = true;
    await expect(connect('SLAVE*')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(connect('SLAVE*')).rejects.toMatchObject({ code: NO_READ_REPLICA_CODE });
    expect(replica.asked).toBe(1);
    expect(await connect('MASTER')).toBe('primary');

    // After the rest one read tries it; while that try runs, the others are not sent there.
    pass(REPLICA_REST_MS);
    await expect(connect('SLAVE*')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(replica.asked).toBe(2);
    await expect(connect('SLAVE*')).rejects.toMatchObject({ code: NO_READ_REPLICA_CODE });
    pass(REPLICA_REST_MS);
    replica.failing = false;
    expect(await connect('SLAVE*')).toBe('replica0');
    expect(await connect('SLAVE*')).toBe('replica0');
  });

  it('sends one read at a time to a replica whose rest is over', () => {
    const { pools, fakes, pass } = primaryAnd(1);
    const replica = fakes.get('replica0')!;
    replica.failing = true;
    pools.getConnection('SLAVE*', () => undefined);
    pass(REPLICA_REST_MS);
    // A try that has not answered yet: hold its callback.
    const held: Callback[] = [];
    replica.getConnection = (callback: Callback) => void held.push(callback);
    const outcomes: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      pools.getConnection('SLAVE*', (error) => outcomes.push((error as { code?: string })?.code));
    }
    expect(held).toHaveLength(1);
    expect(outcomes).toEqual([NO_READ_REPLICA_CODE, NO_READ_REPLICA_CODE]);
  });

  it('logs an outage once, with where the replica is, and its end once', async () => {
    const { connect, fakes, pass } = primaryAnd(1);
    fakes.get('replica0')!.failing = true;
    for (let i = 0; i < 3; i++) {
      await connect('SLAVE*').catch(() => undefined);
      pass(REPLICA_REST_MS);
    }
    expect(fakes.get('replica0')!.asked).toBe(3);
    expect(warned).toHaveBeenCalledTimes(1);
    expect(warned.mock.calls[0][0]).toMatchObject({ replica: 'replica0:3306' });
    fakes.get('replica0')!.failing = false;
    await connect('SLAVE*');
    await connect('SLAVE*');
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0]).toEqual([
      { replica: 'replica0:3306' },
      'A read replica answers again',
    ]);
  });

  it('ends every pool', async () => {
    const { pools, fakes } = primaryAnd(2);
    await new Promise<void>((resolve, reject) =>
      pools.end((error) => (error === null ? resolve() : reject(error))),
    );
    expect([...fakes.values()].every((pool) => pool.ended)).toBe(true);
  });
});
