import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
import {
  installSqliteConnectionGate,
  SQLITE_GATE_METHODS,
  SQLITE_GATE_TYPEORM_VERSION,
} from './sqlite-gate';

/**
 * The gate wraps methods of a TypeORM internal class. These fail on a TypeORM upgrade, so
 * that someone reads BetterSqlite3QueryRunner (and how the driver shares its one runner)
 * again before moving SQLITE_GATE_TYPEORM_VERSION.
 */
describe('SQLite connection gate and TypeORM', () => {
  it('is pinned to the installed TypeORM version', () => {
    // typeorm's `exports` hide its package.json; it sits beside the main entry.
    const manifest = join(dirname(require.resolve('typeorm')), 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    expect(version).toBe(SQLITE_GATE_TYPEORM_VERSION);
  });

  it('finds the methods it wraps, and wraps them once', () => {
    const prototype = BetterSqlite3QueryRunner.prototype as unknown as Record<string, unknown>;
    const original = SQLITE_GATE_METHODS.map((name) => prototype[name]);
    for (const method of original) expect(method).toBeInstanceOf(Function);

    installSqliteConnectionGate();
    const wrapped = SQLITE_GATE_METHODS.map((name) => prototype[name]);
    wrapped.forEach((method, i) => expect(method).not.toBe(original[i]));

    installSqliteConnectionGate();
    expect(SQLITE_GATE_METHODS.map((name) => prototype[name])).toEqual(wrapped);
  });
});
