import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The built worker (`npx nest build api`, or scripts/test.sh before the tests). */
export const WORKER_MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'worker', 'src', 'main.js');

/** A worker process and what it said: its JSON log lines, and anything else. */
export interface WorkerProcess {
  process: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<number | null>;
}

export function requireBuiltWorker(): void {
  if (!existsSync(WORKER_MAIN)) {
    throw new Error(
      `${WORKER_MAIN} is missing: build first (npm run build; scripts/test.sh does it before the tests)`,
    );
  }
}

/** Workers of this test file still running, killed if Jest ends the process first. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts the built worker with exactly `env` (and PATH), logging at `logLevel`. A worker still
 * running when the test process exits (a failed test, Jest's --forceExit) is killed with it,
 * so none outlives the run polling the test database.
 */
export function startWorkerProcess(
  env: Record<string, string>,
  logLevel: 'debug' | 'info' | 'warn' = 'info',
): WorkerProcess {
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const worker: WorkerProcess = {
    process: child,
    lines: [],
    stderr: [],
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      worker.lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      worker.stderr.push(line);
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => worker.stderr.push(line));
  return worker;
}

export const isAlive = (worker: WorkerProcess): boolean =>
  worker.process.exitCode === null && worker.process.signalCode === null;

/** SIGKILLs a worker still running and waits for it to be gone. */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  if (isAlive(worker)) worker.process.kill('SIGKILL');
  await worker.exited;
}
