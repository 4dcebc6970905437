import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  Column,
  DataSource,
  In,
  type EntityManager,
  type EntityTarget,
  type FindOptionsOrder,
  type FindOptionsWhere,
} from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/** The lease columns of a row that workers claim, as its entity class sees them. */
export interface LeaseColumns {
  id: string;
  /** Until when the worker named in `leasedBy` holds the row; past it, any worker may take it. */
  leaseUntil: Date | null;
  leasedBy: string | null;
  /** How many times a worker claimed the row. */
  attempts: number;
  updatedTime: Date;
}

// TypeScript requires exactly `any[]` for a mixin's constructor parameters.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Constructor<T = object> = abstract new (...args: any[]) => T;

/**
 * Adds the lease columns (`lease_until`, `leased_by`, `attempts`) to an entity class, so every
 * table workers claim rows of declares them once: `extends Leased(WorkspaceOwnedEntity)`, or
 * {@link LeasedRow} for an entity with no other base.
 */
export function Leased<TBase extends Constructor>(Base: TBase) {
  abstract class LeasedEntity extends Base {
    @Column({ name: 'lease_until', type: 'datetime', precision: 3, nullable: true })
    leaseUntil!: Date | null;

    @Column({ name: 'leased_by', type: 'varchar', length: 64, nullable: true })
    leasedBy!: string | null;

    @Column({ type: 'int', default: 0 })
    attempts!: number;
  }
  return LeasedEntity;
}

/** An entity with no other base: `class PushJob extends LeasedRow`. */
export abstract class LeasedRow extends Leased(class {}) {}

/** A name for this worker that is unique across processes and hosts, for `leased_by`. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export interface LeaseOptions<T> {
  /** The rows' entity. */
  entity: EntityTarget<T>;
  /** This worker's name ({@link newWorkerId}). */
  workerId: string;
  /** How long a claim or checkpoint holds the row. */
  leaseMs: number;
  /** What else a row must match while a worker holds it (its "in progress" states). */
  held: FindOptionsWhere<T>;
}

/**
 * Claim by compare-and-set, checkpoint only while holding the lease, release: the one way
 * workers share rows of work. Every write names this worker and the held state in its WHERE,
 * so a worker whose lease ran out and was taken over changes nothing (`false` tells it to stop);
 * the one that took over resumes from the last checkpoint.
 */
export class Lease<T extends LeaseColumns> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: LeaseOptions<T>,
  ) {}

  get workerId(): string {
    return this.options.workerId;
  }

  /**
   * Claims the first row, in id order, that one of `due` matches (its state and an expired or
   * absent lease, say), reading a few candidates at a time: when another worker wins one, the
   * next is tried. `set` is written with the lease. Returns `null` when nothing is due.
   */
  async claimNext(
    due: FindOptionsWhere<T>[],
    set: (candidate: T) => QueryDeepPartialEntity<T> = () => ({}),
    candidates = 10,
  ): Promise<T | null> {
    const rows = await this.rows().find({
      where: due,
      order: { id: 'ASC' } as FindOptionsOrder<T>,
      take: candidates,
    });
    for (const candidate of rows) {
      const claimed = await this.claim(
        candidate,
        due.map((where) => ({ ...where, id: candidate.id })),
        set(candidate),
      );
      if (claimed !== null) return claimed;
    }
    return null;
  }

  /**
   * Takes `candidate` if one of `claimable` (the conditions that made it due, re-checked in the
   * UPDATE) still matches: one worker wins. `set` is written with the lease (a new state, say).
   * Returns the row as claimed, or `null` when another worker was first.
   */
  async claim(
    candidate: T,
    claimable: FindOptionsWhere<T>[],
    set: QueryDeepPartialEntity<T> = {},
  ): Promise<T | null> {
    const now = new Date();
    const lease = {
      leaseUntil: this.leaseEnd(now),
      leasedBy: this.workerId,
      attempts: candidate.attempts + 1,
      updatedTime: now,
    };
    for (const where of claimable) {
      const claimed = await this.rows().update(where, {
        ...set,
        ...lease,
      });
      if (claimed.affected === 1) return { ...candidate, ...set, ...lease };
    }
    return null;
  }

  /**
   * {@link claim} for many candidates at once, for a worker that works on several rows
   * concurrently: one UPDATE per `claimable` condition over all of `ids`, then one read of the
   * rows this claim won (named by this worker and this lease's end). Returns them as claimed.
   */
  async claimAll(ids: string[], claimable: FindOptionsWhere<T>[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const now = new Date();
    const lease = { leaseUntil: this.leaseEnd(now), leasedBy: this.workerId, updatedTime: now };
    for (const where of claimable) {
      await this.rows().update({ ...where, id: In(ids) }, {
        ...lease,
        attempts: () => 'attempts + 1',
      } as QueryDeepPartialEntity<T>);
    }
    return this.rows().find({
      where: {
        id: In(ids),
        leasedBy: this.workerId,
        leaseUntil: lease.leaseUntil,
      } as FindOptionsWhere<T>,
    });
  }

  /**
   * Writes progress and extends the lease; false when this worker no longer holds the row.
   * Given a transaction's manager, the write commits (or rolls back) with the rest of it.
   */
  checkpoint(
    id: string,
    changes: QueryDeepPartialEntity<T> = {},
    manager?: EntityManager,
  ): Promise<boolean> {
    const now = new Date();
    return this.write(
      id,
      { leaseUntil: this.leaseEnd(now), updatedTime: now, ...changes },
      manager,
    );
  }

  /**
   * Writes the final state and ends the lease (the row keeps who finished it). Given a
   * transaction's manager, the write commits (or rolls back) with the rest of it.
   */
  finish(
    id: string,
    changes: QueryDeepPartialEntity<T>,
    manager?: EntityManager,
  ): Promise<boolean> {
    return this.write(id, { ...changes, leaseUntil: null, updatedTime: new Date() }, manager);
  }

  /**
   * {@link finish} for many rows at once (those this worker still holds); returns how many it
   * finished.
   */
  async finishAll(ids: string[], changes: QueryDeepPartialEntity<T>): Promise<number> {
    if (ids.length === 0) return 0;
    const held = {
      ...this.options.held,
      id: In(ids),
      leasedBy: this.workerId,
    } as FindOptionsWhere<T>;
    const result = await this.rows().update(held, {
      ...changes,
      leaseUntil: null,
      updatedTime: new Date(),
    });
    return result.affected ?? 0;
  }

  /**
   * Keeps the row from every worker until `at`, then lets any claim it again: an attempt that
   * failed waits out its back-off. False when this worker no longer holds the row.
   */
  retryAt(id: string, at: Date): Promise<boolean> {
    return this.write(id, { leaseUntil: at, updatedTime: new Date() });
  }

  /** Gives the row back for any worker to claim again (e.g. to retry later). */
  release(id: string, changes: QueryDeepPartialEntity<T>): Promise<boolean> {
    return this.write(id, {
      ...changes,
      leaseUntil: null,
      leasedBy: null,
      updatedTime: new Date(),
    });
  }

  private async write(
    id: string,
    changes: QueryDeepPartialEntity<LeaseColumns>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const held = { ...this.options.held, id, leasedBy: this.workerId } as FindOptionsWhere<T>;
    const result = await manager
      .getRepository<T>(this.options.entity)
      .update(held, changes as QueryDeepPartialEntity<T>);
    return result.affected === 1;
  }

  private leaseEnd(now: Date): Date {
    return new Date(now.getTime() + this.options.leaseMs);
  }

  private rows() {
    return this.dataSource.getRepository<T>(this.options.entity);
  }
}

/**
 * When this worker's lease on a row ends, as far as it knows, so work that calls an outside
 * service can make sure the lease outlasts each call: {@link ensure} extends it (a checkpoint)
 * when less than the call may take is left. A call that runs past the lease would let another
 * worker claim the row and make the same call again. The time kept is the start of the write
 * that extended the lease plus the lease's length: never later than the row's own.
 */
export class LeaseTime {
  private until: number;

  /** `leaseUntil`: the lease's end as claimed; unknown (`null`) makes the first ensure extend it. */
  constructor(
    private readonly leaseMs: number,
    leaseUntil: Date | null,
  ) {
    this.until = leaseUntil?.getTime() ?? 0;
  }

  /**
   * Extends the lease through `extend` (a checkpoint: true while this worker holds the row)
   * unless at least `needMs` of it is left. False: the lease was lost, stop.
   */
  async ensure(needMs: number, extend: () => Promise<boolean>): Promise<boolean> {
    if (Date.now() + needMs <= this.until) return true;
    return this.renew(extend);
  }

  /** Extends the lease through `extend` now (a checkpoint of progress); false when lost. */
  async renew(extend: () => Promise<boolean>): Promise<boolean> {
    const started = Date.now();
    if (!(await extend())) return false;
    this.until = started + this.leaseMs;
    return true;
  }
}
