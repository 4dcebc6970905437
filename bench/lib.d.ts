/**
 * Types of `bench/lib.js` (plain CommonJS, run without a compile step by the older benches) for
 * the TypeScript benches, which load it at run time from the repository (see support.ts).
 */
import type { ChildProcess } from 'node:child_process';

export interface BenchDatabase {
  name: string;
  url: string;
}

export interface BenchSqliteDatabase {
  name: string;
  path: string;
}

export interface StartedProcess {
  child: ChildProcess;
  /** The last 4,000 characters the process wrote to stdout and stderr. */
  output(): string;
}

export interface StartedService {
  db: BenchDatabase;
  base: string;
  /** The owner's JWT. */
  token: string;
  /** An API key of the owner. */
  apiKey: string;
  proc: StartedProcess;
}

export interface JsonOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Machine {
  nproc: number;
  cpu: string;
  memTotal: string;
  memFree: string;
  load: string;
  node: string;
}

export const ROOT: string;
export const SERVER_URL: string;
export function cleanup(): Promise<void>;
export function createDatabase(label: string): Promise<BenchDatabase>;
export function createSqliteDatabase(label: string): BenchSqliteDatabase;
/** Throws on a non-2xx answer; `null` for an empty body. */
export function json(url: string, options?: JsonOptions): Promise<unknown>;
export function machine(): Machine;
export function onCleanup(fn: () => unknown): void;
export function percentile(sorted: number[], p: number): number;
/** An RGBA PNG: blank (1×1 by default) or of random pixels. */
export function uploadPassImages(
  base: string,
  headers: Record<string, string>,
): Promise<{ fileName: string; uploadKey: string }[]>;
export function png(width?: number, height?: number, options?: { random?: boolean }): Buffer;
export function printMachine(): void;
export function readJson(path: string): unknown;
export function requireBuild(): void;
export function run(main: () => Promise<void>, limitMs?: number): void;
/** `database`: a MariaDB URL, or an SQLite database. */
export function serviceEnv(
  database: string | BenchSqliteDatabase,
  port: number,
  extra?: Record<string, string>,
): Record<string, string | undefined>;
export function sleep(ms: number): Promise<void>;
export function startProcess(
  label: string,
  args: string[],
  env: Record<string, string | undefined>,
  readyUrl: string,
  timeoutMs?: number,
): Promise<StartedProcess>;
export function startService(
  label: string,
  port: number,
  extraEnv?: Record<string, string>,
  nodeArgs?: string[],
  options?: { dialect?: 'mysql' },
): Promise<StartedService>;
export function startService(
  label: string,
  port: number,
  extraEnv: Record<string, string>,
  nodeArgs: string[],
  options: { dialect: 'sqlite' },
): Promise<Omit<StartedService, 'db'> & { db: BenchSqliteDatabase }>;
export function startServiceProcess(
  database: string | BenchSqliteDatabase,
  port: number,
  extraEnv?: Record<string, string>,
  nodeArgs?: string[],
): Promise<{ base: string; proc: StartedProcess }>;

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMsOf(pid: number): number;
