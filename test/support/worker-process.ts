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

/** Starts the built worker with exactly `env` (and PATH), logging at info level. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
