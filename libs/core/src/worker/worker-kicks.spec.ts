import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { KickCoalescer } from './worker-kicks';
import { WorkerHandle } from './worker-scheduler';

describe('KickCoalescer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends the first kick at once and merges the burst after it into one trailing send', () => {
    const sent: string[] = [];
    const coalescer = new KickCoalescer((name) => sent.push(name), 20);

    coalescer.announce('Notifications');
    expect(sent).toEqual(['Notifications']);
    for (let i = 0; i < 50; i++) coalescer.announce('Notifications');
    // The burst is not lost: one send at the end of the window covers it.
    expect(sent).toEqual(['Notifications']);
    jest.advanceTimersByTime(19);
    expect(sent).toEqual(['Notifications']);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual(['Notifications', 'Notifications']);

    // A quiet window later, the next kick goes at once again.
    jest.advanceTimersByTime(100);
    coalescer.announce('Notifications');
    expect(sent).toHaveLength(3);
  });

  it('coalesces each worker name on its own', () => {
    const sent: string[] = [];
    const coalescer = new KickCoalescer((name) => sent.push(name), 20);
    coalescer.announce('Notifications');
    coalescer.announce('PassUpdates');
    coalescer.announce('Notifications');
    coalescer.announce('PassUpdates');
    expect(sent).toEqual(['Notifications', 'PassUpdates']);
    jest.advanceTimersByTime(20);
    expect(sent).toEqual(['Notifications', 'PassUpdates', 'Notifications', 'PassUpdates']);
  });

  it('drops the trailing send on close', () => {
    const sent: string[] = [];
    const coalescer = new KickCoalescer((name) => sent.push(name), 20);
    coalescer.announce('Notifications');
    coalescer.announce('Notifications');
    coalescer.close();
    jest.advanceTimersByTime(100);
    expect(sent).toEqual(['Notifications']);
  });
});

describe('WorkerHandle announcing kicks', () => {
  function handleFor(ticks: { n: number }, announced: string[]): WorkerHandle {
    const worker = {
      name: 'Notifications',
      tick: () => {
        ticks.n += 1;
        return Promise.resolve();
      },
    };
    return new WorkerHandle(worker, new SchedulerRegistry(), new Logger('test'), (name) =>
      announced.push(name),
    );
  }

  it('announces a kick even where the worker does not run (an API process)', () => {
    const ticks = { n: 0 };
    const announced: string[] = [];
    const handle = handleFor(ticks, announced);
    handle.kick();
    expect(announced).toEqual(['Notifications']);
    expect(ticks.n).toBe(0);
  });

  it('does not announce its own poll or kicks received from other processes', async () => {
    const ticks = { n: 0 };
    const announced: string[] = [];
    const handle = handleFor(ticks, announced);
    handle.start(60_000);
    handle.run();
    await handle.stop();
    expect(announced).toEqual([]);
    // The start's tick and the run during it: the second waits for the first, then runs.
    expect(ticks.n).toBeGreaterThanOrEqual(1);
  });
});
