import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';

/**
 * TypeORM's better-sqlite3 driver runs every caller through one shared connection and query
 * runner. Left alone, a second concurrent transaction fails ("cannot start a transaction
 * within a transaction"), and worse, a plain statement of another request issued while a
 * transaction is open runs inside it and is lost if that transaction rolls back.
 *
 * This gate gives the connection to one async flow at a time: a transaction holds it from
 * BEGIN to COMMIT/ROLLBACK (the flow is recognised through AsyncLocalStorage, so the
 * transaction's own statements pass), a single statement holds it for its own duration.
 * SQLite has one writer at a time anyway and better-sqlite3 is synchronous, so little is
 * lost. MySQL has a pool of real connections and is not affected.
 */
class Mutex {
  private locked = false;
  private readonly waiting: (() => void)[] = [];

  async acquire(): Promise<void> {
    while (this.locked) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.locked = true;
  }

  release(): void {
    this.locked = false;
    this.waiting.shift()?.();
  }
}

interface Hold {
  gate: Mutex;
  active: boolean;
}

const holds = new AsyncLocalStorage<Hold>();
const gates = new WeakMap<object, Mutex>();

function gateOf(runner: QueryRunner): Mutex {
  let gate = gates.get(runner.connection.driver);
  if (gate === undefined) {
    gate = new Mutex();
    gates.set(runner.connection.driver, gate);
  }
  return gate;
}

function holdsGate(gate: Mutex): boolean {
  const hold = holds.getStore();
  return hold !== undefined && hold.active && hold.gate === gate;
}

type Method = (this: QueryRunner, ...args: unknown[]) => Promise<unknown>;

/**
 * TypeORM gives no way to supply the query runner (the driver builds its one runner itself,
 * and the `driver` option only swaps the native library), so the gate wraps methods of
 * TypeORM's internal BetterSqlite3QueryRunner class. It was written against this TypeORM
 * version; sqlite-gate.typeorm.spec.ts fails once another version is installed, so that the
 * wrapped internals are read again before the pin moves.
 */
export const SQLITE_GATE_TYPEORM_VERSION = '1.1.1';

/** The query runner methods the gate wraps. */
export const SQLITE_GATE_METHODS = [
  'query',
  'startTransaction',
  'commitTransaction',
  'rollbackTransaction',
] as const;

let installed = false;

/**
 * Installs the gate on every better-sqlite3 data source of this process. Idempotent; called by
 * `dataSourceOptions` when it describes a SQLite database, so every data source built
 * from those options (app, worker, CLI, tests) is gated before it runs a statement.
 */
export function installSqliteConnectionGate(): void {
  if (installed) return;
  const found = BetterSqlite3QueryRunner.prototype as unknown as Record<string, unknown>;
  const missing = SQLITE_GATE_METHODS.filter((name) => typeof found[name] !== 'function');
  if (missing.length > 0) {
    // Running ungated would let concurrent transactions corrupt each other: refuse to start.
    throw new Error(
      `SQLite connection gate: TypeORM's BetterSqlite3QueryRunner has no ${missing.join(', ')} ` +
        `(the gate was written for TypeORM ${SQLITE_GATE_TYPEORM_VERSION})`,
    );
  }
  installed = true;
  const prototype = found as Record<(typeof SQLITE_GATE_METHODS)[number], Method>;
  const { query, startTransaction, commitTransaction, rollbackTransaction } = prototype;

  prototype.query = async function (this: QueryRunner, ...args: unknown[]) {
    const gate = gateOf(this);
    if (holdsGate(gate)) return query.apply(this, args);
    await gate.acquire();
    try {
      return await query.apply(this, args);
    } finally {
      gate.release();
    }
  };

  prototype.startTransaction = async function (this: QueryRunner, ...args: unknown[]) {
    const gate = gateOf(this);
    if (holdsGate(gate)) return startTransaction.apply(this, args); // a nested savepoint
    // Entered before the first await, so the caller's flow (the transaction body) carries it.
    const hold: Hold = { gate, active: false };
    holds.enterWith(hold);
    await gate.acquire();
    hold.active = true;
    try {
      return await startTransaction.apply(this, args);
    } catch (error) {
      hold.active = false;
      gate.release();
      throw error;
    }
  };

  const ending = (original: Method): Method =>
    async function (this: QueryRunner, ...args: unknown[]) {
      try {
        return await original.apply(this, args);
      } finally {
        const hold = holds.getStore();
        if (!this.isTransactionActive && hold?.active === true) {
          hold.active = false;
          hold.gate.release();
        }
      }
    };
  prototype.commitTransaction = ending(commitTransaction);
  prototype.rollbackTransaction = ending(rollbackTransaction);
}
