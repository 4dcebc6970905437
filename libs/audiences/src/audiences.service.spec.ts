import { CostlyReads, ReadDeadlineError, UnavailableError } from '@app/core';
import type { DataSource, EntityManager, Repository } from 'typeorm';
import type { Pass, PassesService } from '@app/passes';
import { readAudience } from './audience';
import { AudiencesService } from './audiences.service';
import type { Segment } from './segment.entity';

const MIB = 2 ** 20;

/** The service on a MariaDB whose pool and tables are as given, with every count past its deadline. */
function timingOut(type: string, pool: number, tables: number) {
  const dataSource = {
    options: { type },
    query: jest.fn().mockResolvedValue([{ pool: String(pool), tables: String(tables) }]),
  };
  const reads = { query: jest.fn().mockRejectedValue(new ReadDeadlineError(4000)) };
  const service = new AudiencesService(
    dataSource as unknown as DataSource,
    {} as Repository<Segment>,
    {} as PassesService,
    reads as unknown as CostlyReads,
  );
  return { service, dataSource };
}

const pass = { id: 'pass-1', passMetadata: {} } as unknown as Pass;
const gold = readAudience({ tag: 'gold' }, null);

describe('AudiencesService.size past its deadline', () => {
  it('says the server is too small when its buffer pool holds less than the holder tables', async () => {
    const { service } = timingOut('mysql', 128 * MIB, 2.4 * 2 ** 30);
    const refused = await service.size('ws-1', pass, gold).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect((refused as Error).message).toBe(
      "Counting this audience took longer than 4 s: the database server's buffer pool " +
        '(innodb_buffer_pool_size, 128 MiB) is smaller than the holder tables it reads ' +
        '(2.4 GiB), so each count reads them from disk. Give the server a pool that holds them.',
    );
  });

  it('answers the plain 503 when the pool holds the tables', async () => {
    const { service } = timingOut('mysql', 4096 * MIB, 2.4 * 2 ** 30);
    await expect(service.size('ws-1', pass, gold)).rejects.toThrow(
      'The database did not answer in time',
    );
  });

  it('answers the plain 503 on SQLite, which has no buffer pool to blame', async () => {
    const { service, dataSource } = timingOut('better-sqlite3', 0, 1);
    await expect(service.size('ws-1', pass, gold)).rejects.toThrow(
      'The database did not answer in time',
    );
    expect(dataSource.query).not.toHaveBeenCalled();
  });
});

describe('AudiencesService.snapshotChosenBatch', () => {
  /** Writes a snapshot of `chosen` batch by batch as a worker does, each batch's ids and result. */
  async function batches(chosen: string[], limit: number) {
    const { service } = timingOut('better-sqlite3', 0, 1);
    const manager = { query: jest.fn().mockResolvedValue([]) };
    const seen: { ids: unknown[]; last: string | null; done: boolean }[] = [];
    let after: string | null = null;
    for (let batch = 0; batch < 10; batch++) {
      manager.query.mockClear();
      const step = await service.snapshotChosenBatch(
        manager as unknown as EntityManager,
        'snap-1',
        pass,
        chosen,
        after,
        limit,
      );
      // The parameters after the snapshot id, workspace and pass are the batch's holder ids.
      const ids = manager.query.mock.calls.flatMap(([, params]) => (params as unknown[]).slice(3));
      seen.push({ ids, ...step });
      if (step.done) break;
      after = step.last;
    }
    return seen;
  }

  it('writes the chosen ids without repeats in order, checkpointing the last of each batch', async () => {
    expect(await batches(['e', 'b', 'a', 'e', 'd', 'c'], 2)).toEqual([
      { ids: ['a', 'b'], last: 'b', done: false },
      { ids: ['c', 'd'], last: 'd', done: false },
      { ids: ['e'], last: 'e', done: true },
    ]);
  });

  it('ends with a full batch when the ids fill it exactly', async () => {
    expect(await batches(['b', 'a', 'd', 'c'], 2)).toEqual([
      { ids: ['a', 'b'], last: 'b', done: false },
      { ids: ['c', 'd'], last: 'd', done: true },
    ]);
  });
});
