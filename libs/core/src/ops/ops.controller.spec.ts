import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { UnavailableError } from '../errors/domain-errors';
import type { MetricsService } from './metrics.service';
import { OpsController } from './ops.controller';

/** A database that answers `SELECT 1`, or never does. */
function database(answers: boolean): DataSource {
  const fake = {
    isInitialized: true,
    query: (): Promise<unknown> =>
      answers ? Promise.resolve([{ 1: 1 }]) : new Promise(() => undefined),
  };
  return fake as unknown as DataSource;
}

/** A Redis whose PING answers, fails at once (away), or never answers (frozen). */
function redis(ping: 'answer' | 'fail' | 'hang'): Redis {
  const fake = {
    ping: (): Promise<'PONG'> =>
      ping === 'answer'
        ? Promise.resolve('PONG')
        : ping === 'fail'
          ? Promise.reject(new Error("Stream isn't writeable"))
          : new Promise<never>(() => undefined),
  };
  return fake as unknown as Redis;
}

const metrics = {} as MetricsService;

describe('OpsController.health', () => {
  afterEach(() => jest.useRealTimers());

  it('keeps its answer without Redis configured', async () => {
    const controller = new OpsController(database(true), metrics, null);
    expect(await controller.health()).toEqual({ status: 'ok', database: 'up' });
  });

  it('lists Redis when it answers', async () => {
    const controller = new OpsController(database(true), metrics, redis('answer'));
    expect(await controller.health()).toEqual({ status: 'ok', database: 'up', redis: 'up' });
  });

  it('says degraded, not unavailable, when Redis is away', async () => {
    const controller = new OpsController(database(true), metrics, redis('fail'));
    expect(await controller.health()).toEqual({
      status: 'degraded',
      database: 'up',
      redis: 'down',
    });
  });

  it('says degraded within 1 s when Redis is frozen', async () => {
    jest.useFakeTimers();
    const controller = new OpsController(database(true), metrics, redis('hang'));
    let answer: unknown;
    const health = controller.health().then((body) => (answer = body));
    await jest.advanceTimersByTimeAsync(999);
    expect(answer).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    await health;
    expect(answer).toEqual({ status: 'degraded', database: 'up', redis: 'down' });
  });

  it('is unavailable within 2 s when the database does not answer, whatever Redis does', async () => {
    jest.useFakeTimers();
    const controller = new OpsController(database(false), metrics, redis('hang'));
    const health = controller.health().catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(2000);
    expect(await health).toBeInstanceOf(UnavailableError);
  });
});
