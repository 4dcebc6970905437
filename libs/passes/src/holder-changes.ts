import { sqlDialect } from '@app/core';
import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager, type FindOptionsWhere } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Pass, type PassMessage } from './entities/pass.entity';
import { Holder } from './entities/holder.entity';
import { holderChangeTime } from './pass-content';

/** Runs inside the transaction that changed what holders see of a pass (its version moved on). */
export type PassChangeHook = (manager: EntityManager, pass: Pass) => Promise<void>;

/**
 * What changed for personal holders of one pass, without a change of the pass itself: one
 * holder (PATCH, void) or every holder of the pass changed at or after `since` (an import,
 * which may change thousands at once and is announced once).
 */
export type HolderChange =
  | { pass: Pass; holder: Holder; since?: undefined }
  | { pass: Pass; holder?: undefined; since: Date };

/** Runs inside the transaction that changed what some holders of a pass see. */
export type HolderChangeHook = (manager: EntityManager, change: HolderChange) => Promise<void>;

/**
 * Whom a job queued for a change must reach, in the columns of a {@link PassJobRow}: the whole
 * pass (a pass change: every device and object, shared and personal), one holder, or the
 * holders changed since a time (an import).
 */
export interface JobReach {
  pass: Pass;
  holderId: string | null;
  holdersSince: Date | null;
}

/** The columns a holder-visible change writes besides the version and `updatedTime`. */
export type PassChanges =
  | QueryDeepPartialEntity<Pass>
  | ((locked: Pass, updatedTime: Date) => QueryDeepPartialEntity<Pass>);

export interface BumpOptions {
  /** The change's own clock; `updatedTime` is still moved to a later second than before. */
  now?: Date;
  /**
   * Whether the pass change hooks run (queueing a push to every device and a WalletB sync).
   * Only a caller that pushes the devices itself, in its own crash-safe way, says `false`.
   */
  announce?: boolean;
}

/**
 * One transaction's view of the holder-visible changes it makes. Every pass moved on through
 * it gets the change hooks once, with its final row, just before the transaction commits, and
 * the after-commit listeners once it has.
 */
export class HolderChangeSet {
  private readonly bumped = new Map<string, boolean>();
  private readonly announced: Pass[] = [];
  private readonly holderChanges: (
    { passId: string; holder: Holder } | { passId: string; since: Date }
  )[] = [];

  constructor(readonly manager: EntityManager) {}

  /**
   * Locks the pass row for the rest of the transaction and moves its version on, with
   * `updatedTime` (the package's Last-Modified, which has one-second resolution) at least one
   * second later than before, so a device asking "changed since?" always sees the change.
   * `changes` are written in the same statement as the new time. Returns the pass as written,
   * or `null` when `where` matched no row (nothing was changed then).
   */
  async bumpPassVersion(
    where: FindOptionsWhere<Pass> & { id: string },
    changes: PassChanges = {},
    { now, announce = true }: BumpOptions = {},
  ): Promise<Pass | null> {
    // The increment in SQL takes the row lock: concurrent changes of one pass take turns and
    // each gets its own version.
    const moved = await this.manager.update(Pass, where, { version: () => 'version + 1' });
    if (moved.affected === 0) return null;
    const locked = await this.manager.findOneByOrFail(Pass, { id: where.id });
    const updatedTime = holderChangeTime(locked.updatedTime, now);
    const columns = typeof changes === 'function' ? changes(locked, updatedTime) : changes;
    await this.manager.update(Pass, { id: locked.id }, { ...columns, updatedTime });
    const written = await this.manager.findOneByOrFail(Pass, { id: locked.id });
    this.bumped.set(written.id, (this.bumped.get(written.id) ?? false) || announce);
    return written;
  }

  /**
   * Puts a notification's message on some Active holders of a pass only (their packages show
   * it, see `shownMessage`) and moves their versions on, with one `updatedTime` a second later
   * than the latest of theirs. Not announced: the caller pushes those holders' devices itself,
   * in its own crash-safe way (as `bumpPassVersion` with `announce: false`). Returns how many
   * holders got it.
   */
  async messageHolders(
    passId: string,
    holderIds: readonly string[],
    message: PassMessage,
    now = new Date(),
  ): Promise<number> {
    if (holderIds.length === 0) return 0;
    const where = { passId, id: In([...holderIds]), status: 'Active' as const };
    const latest = await this.manager
      .createQueryBuilder(Holder, 'h')
      .select('MAX(h.updated_time)', 'at')
      .where(where)
      .getRawOne<{ at: Date | string | null }>();
    if (latest?.at === null || latest?.at === undefined) return 0;
    const previous = sqlDialect(this.manager.connection).readDate(latest.at);
    const updatedTime = holderChangeTime(previous, now);
    const written = await this.manager.update(Holder, where, {
      walletAMessage: message,
      version: () => 'version + 1',
      updatedTime,
    });
    return written.affected ?? 0;
  }

  /** A pass this transaction inserted in a state holders can see (created Published). */
  created(pass: Pass): void {
    this.bumped.set(pass.id, true);
  }

  /**
   * A holder whose visible values (field values, barcode, status) this transaction changed,
   * as written. The caller has moved its version on and its `updatedTime` to
   * {@link holderChangeTime} of the previous one (its package's Last-Modified).
   */
  holderChanged(holder: Holder): void {
    this.holderChanges.push({ passId: holder.passId, holder });
  }

  /**
   * Holders of a pass changed by this transaction, each with an `updatedTime` at or after
   * `since` (many at once: announced once, not once per holder).
   */
  holdersChangedSince(passId: string, since: Date): void {
    this.holderChanges.push({ passId, since });
  }

  /**
   * @internal Runs the hooks for each announced pass, as it stands at the end of the work,
   * then the holder hooks for holder changes of passes not announced as a whole (a pass
   * change already reaches every holder).
   */
  async runHooks(
    hooks: readonly PassChangeHook[],
    holderHooks: readonly HolderChangeHook[] = [],
  ): Promise<void> {
    for (const [passId, announce] of this.bumped) {
      if (!announce) continue;
      const pass = await this.manager.findOneByOrFail(Pass, { id: passId });
      for (const hook of hooks) await hook(this.manager, pass);
      this.announced.push(pass);
    }
    for (const change of this.holderChanges) {
      if (this.bumped.get(change.passId) === true) continue;
      const pass = await this.manager.findOneByOrFail(Pass, { id: change.passId });
      const full: HolderChange =
        'holder' in change ? { pass, holder: change.holder } : { pass, since: change.since };
      for (const hook of holderHooks) await hook(this.manager, full);
      if (!this.announced.some((announced) => announced.id === pass.id)) {
        this.announced.push(pass);
      }
    }
  }

  /** @internal The passes whose hooks ran, for the after-commit listeners. */
  get announcedPasses(): readonly Pass[] {
    return this.announced;
  }
}

/**
 * The one path for changes holders see. A pass version moves on only inside
 * {@link HolderChanges.transaction} through {@link HolderChangeSet.bumpPassVersion}, which also
 * moves Last-Modified on; wallet integrations react in the same transaction (to queue device
 * pushes and syncs) through {@link register}, and start that work once it committed through
 * {@link onCommitted}, without the passes module knowing about them.
 * `test/holder-changes.spec` fails when code elsewhere writes a pass's version.
 */
@Injectable()
export class HolderChanges {
  private readonly hooks: PassChangeHook[] = [];
  private readonly holderHooks: HolderChangeHook[] = [];
  private readonly committedListeners: ((pass: Pass) => void)[] = [];

  constructor(private readonly dataSource: DataSource) {}

  register(hook: PassChangeHook): void {
    this.hooks.push(hook);
  }

  /** Runs for changes of personal holders ({@link HolderChangeSet.holderChanged}). */
  registerHolderHook(hook: HolderChangeHook): void {
    this.holderHooks.push(hook);
  }

  /**
   * A wallet's job queue: `queue` runs in the transaction of every change holders see, of the
   * pass or of some of its holders, told whom the job must reach.
   */
  registerJobQueue(queue: (manager: EntityManager, reach: JobReach) => Promise<void>): void {
    this.register((manager, pass) => queue(manager, { pass, holderId: null, holdersSince: null }));
    this.registerHolderHook((manager, change) =>
      queue(manager, {
        pass: change.pass,
        holderId: change.holder?.id ?? null,
        holdersSince: change.since ?? null,
      }),
    );
  }

  /** Told after a changing transaction committed, e.g. to start the work it queued at once. */
  onCommitted(listener: (pass: Pass) => void): void {
    this.committedListeners.push(listener);
  }

  /**
   * Runs `work` in one transaction; the passes it changed through its {@link HolderChangeSet}
   * get the hooks before the commit and the after-commit listeners after it.
   */
  async transaction<T>(
    work: (changes: HolderChangeSet) => Promise<T>,
    isolation?: IsolationLevel,
  ): Promise<T> {
    let changes: HolderChangeSet | undefined;
    const run = async (manager: EntityManager): Promise<T> => {
      changes = new HolderChangeSet(manager);
      const result = await work(changes);
      await changes.runHooks(this.hooks, this.holderHooks);
      return result;
    };
    const result =
      isolation === undefined
        ? await this.dataSource.transaction(run)
        : await this.dataSource.transaction(isolation, run);
    for (const pass of changes?.announcedPasses ?? []) {
      for (const listener of this.committedListeners) listener(pass);
    }
    return result;
  }
}
