/**
 * The better-sqlite3 package for this Node.js, by its Node-API version:
 *   10 or later (Node 22.14+, 23.6+, 24): `better-sqlite3-napi`, an npm alias of better-sqlite3
 *     13, whose prebuilt Node-API binaries ship inside the package and work on every such Node;
 *   older (Node 20): `better-sqlite3`, version 12, built for this Node's ABI when npm installs it.
 * better-sqlite3 12 aborts the process on Node 24.19 and later when the garbage collector
 * finalizes a statement (nodejs/node#65446); better-sqlite3 13 crashes when loaded on Node 20.
 */
export type SqlitePackage = 'better-sqlite3' | 'better-sqlite3-napi';

/** Node-API version 10 is the first better-sqlite3 13 runs on. */
const NAPI_FOR_SQLITE_13 = 10;

export function sqlitePackage(napiVersion = process.versions.napi): SqlitePackage {
  return Number(napiVersion) >= NAPI_FOR_SQLITE_13 ? 'better-sqlite3-napi' : 'better-sqlite3';
}

/**
 * The better-sqlite3 module to hand to TypeORM's `driver` option (or to call as
 * `new Database(path)`); only the package chosen is loaded.
 */
export function sqliteDriver(): unknown {
  // One literal require per package: only the chosen one is loaded.
  return sqlitePackage() === 'better-sqlite3-napi'
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('better-sqlite3-napi')
    : // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('better-sqlite3');
}
