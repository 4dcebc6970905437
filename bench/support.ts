import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import type { ApnsFakeOptions } from '../test/fakes/apns-fake';
import { makePng } from '../test/support/png';
import { createApnsSigningKey } from '../test/support/test-certificates';
import type * as Lib from './lib';
import {
  RpcClient,
  type BareCommand,
  type BareReplies,
  type FakeCommand,
  type FakeReplies,
} from './rpc';

/**
 * What the TypeScript benches share. They run from `dist/bench/` but use the repository's
 * `bench/lib.js` (databases, the service process, clean-up, time limit) and the build's
 * `newId`, loaded from where they are rather than copied, so there is one of each.
 */

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bench', 'lib.js'))) {
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`No repository above ${from}`);
  }
}

export const ROOT = findRoot(__dirname);
const load = createRequire(join(ROOT, 'package.json'));
export const lib = load('./bench/lib.js') as typeof Lib;

let ids: { newId: () => string } | undefined;

/** The service's UUIDv7, from the build (the ids of rows the bench inserts itself). */
export function newId(): string {
  ids ??= load('./dist/libs/core/src/ids/ids.js') as { newId: () => string };
  return ids.newId();
}

export const WORKER_JS = join(ROOT, 'dist/apps/worker/src/main.js');
export const PASS_TYPE_ID = 'pass.example.bench';
const TEAM_ID = 'TEAMBENCH1';
const KEY_ID = 'KEYBENCH01';
export const FINAL_STATUSES = [
  'Published',
  'Failed',
  'AppleFailedGoogleSuccess',
  'AppleSuccessGoogleFailed',
];

/** A device push token as APNs hands them out (32 bytes, hex), different for each `n`. */
export function pushToken(tag: string, n: number): string {
  return createHash('sha256').update(`push ${tag} ${n}`).digest('hex');
}

/** A device library identifier shaped like Wallet's (32 hex characters). */
export function deviceLibraryId(tag: string, n: number): string {
  return createHash('sha256').update(`device ${tag} ${n}`).digest('hex').slice(0, 32);
}

export interface NodeProcess {
  pid: number;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once the process wrote `text` (to stdout or stderr). */
  waitForOutput(text: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** BENCH_LOG_DIR: every process's whole output is also written there (the bench keeps a tail). */
const LOG_DIR = process.env.BENCH_LOG_DIR;

function openProcessLog(dir: string, label: string, pid: number): number {
  const path = join(dir, `${label.replace(/\W+/g, '-')}-${pid}.log`);
  console.log(`${label}: output in ${path}`);
  return openSync(path, 'w');
}

/** A node process of ours, stopped (SIGTERM, then SIGKILL after 5 s) at clean-up at the latest. */
export function startNode(
  label: string,
  args: string[],
  env: Record<string, string | undefined>,
  ipc = false,
): NodeProcess & { child: ReturnType<typeof spawn> } {
  const child = spawn(process.execPath, args, {
    env,
    cwd: ROOT,
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    serialization: 'advanced',
  });
  if (child.pid === undefined) throw new Error(`${label} did not start`);
  const log = LOG_DIR === undefined ? undefined : openProcessLog(LOG_DIR, label, child.pid);
  let tail = '';
  const watchers: Array<{ text: string; found: () => void }> = [];
  const onData = (chunk: Buffer): void => {
    if (log !== undefined) writeSync(log, chunk);
    tail = (tail + chunk.toString('utf8')).slice(-8000);
    for (const watcher of [...watchers]) {
      if (tail.includes(watcher.text)) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.found();
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (log !== undefined) child.once('close', () => closeSync(log));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  lib.onCleanup(stop);
  return {
    child,
    pid: child.pid,
    output: () => tail,
    exited,
    stop,
    waitForOutput: (text, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${label} did not print "${text}":\n${tail}`)),
          timeoutMs,
        );
        const found = (): void => {
          clearTimeout(timer);
          resolve();
        };
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`${label} exited:\n${tail}`));
        });
        if (tail.includes(text)) found();
        else watchers.push({ text, found });
      }),
  };
}

export type FakeClient = RpcClient<FakeCommand, FakeReplies> & { url: string };

/** The APNs fake in its own process, checking provider tokens made with the returned key. */
export async function startApnsFake(
  record: ApnsFakeOptions['record'],
): Promise<{ fake: FakeClient; maxConcurrentStreams: number; env: Record<string, string> }> {
  const key = createApnsSigningKey();
  const proc = startNode(
    'APNs fake',
    [join(__dirname, 'apns-fake-process.js')],
    { PATH: process.env.PATH },
    true,
  );
  const client = new RpcClient<FakeCommand, FakeReplies>('APNs fake', proc.child, proc.output);
  const started = await client.call({
    kind: 'start',
    options: {
      topic: PASS_TYPE_ID,
      tokenAuth: { publicKeyPem: key.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
      record,
    },
  });
  const keyDir = mkdtempSync(join(tmpdir(), 'wps-bench-apns-'));
  lib.onCleanup(() => rmSync(keyDir, { recursive: true, force: true }));
  const keyPath = join(keyDir, 'AuthKey.p8');
  writeFileSync(keyPath, key.privateKeyPem);
  return {
    fake: Object.assign(client, { url: started.url }),
    maxConcurrentStreams: started.maxConcurrentStreams,
    // The settings that point the service (API and worker alike) at the fake.
    env: {
      WALLET_A_PASS_TYPE_ID: PASS_TYPE_ID,
      WALLET_A_TEAM_ID: TEAM_ID,
      WALLET_A_APNS_URL: started.url,
      WALLET_A_APNS_KEY: keyPath,
      WALLET_A_APNS_KEY_ID: KEY_ID,
    },
  };
}

/** Extra node options for the bare client (BENCH_BARE_NODE_ARGS), e.g. to log its heap. */
const BARE_NODE_ARGS = (process.env.BENCH_BARE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Pushes `tokens` with the bare HTTP/2 client, in a fresh process of its own. */
export async function runBareClient(
  fakeEnv: Record<string, string>,
  tokens: string[],
  streams: number,
): Promise<BareReplies['push']> {
  const proc = startNode(
    'bare client',
    [...BARE_NODE_ARGS, join(__dirname, 'apns-bare-client.js')],
    { PATH: process.env.PATH, BENCH_BARE_LEAN_BIND: process.env.BENCH_BARE_LEAN_BIND },
    true,
  );
  const client = new RpcClient<BareCommand, BareReplies>('bare client', proc.child, proc.output);
  try {
    return await client.call({
      kind: 'push',
      run: {
        url: fakeEnv.WALLET_A_APNS_URL,
        topic: fakeEnv.WALLET_A_PASS_TYPE_ID,
        keyPem: readFileSync(fakeEnv.WALLET_A_APNS_KEY, 'utf8'),
        keyId: fakeEnv.WALLET_A_APNS_KEY_ID,
        teamId: fakeEnv.WALLET_A_TEAM_ID,
        tokens,
        streams,
      },
    });
  } finally {
    await proc.stop();
  }
}

/** The service's API with an API key. */
export class Api {
  constructor(
    readonly base: string,
    private readonly apiKey: string,
  ) {}

  async get<T>(path: string): Promise<T> {
    return (await lib.json(`${this.base}${path}`, { headers: { 'api-key': this.apiKey } })) as T;
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    return (await lib.json(`${this.base}${path}`, {
      method: 'POST',
      headers: { 'api-key': this.apiKey },
      body,
    })) as T;
  }
}

export interface CreatedPass {
  id: string;
  workspaceId: string;
}

export interface PassCounters {
  appleIssuedCount: number;
  appleActiveCount: number;
  totalIssuedCount: number;
  totalActiveCount: number;
}

export interface NotificationView {
  id: string;
  status: string;
  scheduledTime: string | null;
  sentTime: string | null;
  publishedTime: string | null;
  createdTime: string;
  appleNotificationSentCount: number;
  /** Holders an audience or segment matched when sent; null for the pass's devices. */
  audienceSize: number | null;
  failureReason: string | null;
}

/** Uploads the three images a WalletA pass needs (as a user would); their upload keys. */
export async function uploadPassImages(
  api: Api,
): Promise<Array<{ fileName: string; uploadKey: string }>> {
  const images = [];
  for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
    const upload = await api.post<{ uploadKey: string }>('/v1/uploads/storage', {
      file: makePng({ width: 8, height: 8 }).toString('base64'),
      fileName,
    });
    images.push({ fileName, uploadKey: upload.uploadKey });
  }
  return images;
}

/** A Published pass with those images, through the API. */
export async function createPublishedPass(
  api: Api,
  images: Array<{ fileName: string; uploadKey: string }>,
  passName: string,
): Promise<CreatedPass> {
  return api.post<CreatedPass>('/v1/wallet-pass', {
    passName,
    passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
    notificationHeader: 'Brand news',
    status: 'Published',
    uploadInfoList: images,
  });
}

/** Waits until the worker has no WalletA pass-update job left to do (e.g. the pass's creation). */
export async function waitForIdlePushJobs(dbUrl: string, timeoutMs = 60_000): Promise<void> {
  const connection = await createConnection(dbUrl);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [rows] = await connection.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS busy FROM wallet_a_push_job WHERE state IN ('pending', 'processing')",
      );
      if (Number(rows[0].busy) === 0) return;
      if (Date.now() > deadline) throw new Error('WalletA pass-update jobs did not finish');
      await lib.sleep(200);
    }
  } finally {
    await connection.end();
  }
}

export interface SeedDevice {
  deviceLibraryId: string;
  pushToken: string;
  /** The holder whose personal copy the device holds; absent: the shared pass. */
  holder?: { id: string; serialNumber: string };
}

/**
 * Registers devices for passes with bulk INSERTs, as RegistrationsService.register would one by
 * one: a wallet_a_registration row each (UUIDv7 id, times now, not removed) and the pass's
 * WalletA and total issued/active counters moved by as many, in one transaction.
 */
export async function seedRegistrations(
  dbUrl: string,
  devicesByPass: Map<CreatedPass, SeedDevice[]>,
  batchSize = 5000,
): Promise<void> {
  // timezone Z: the service stores UTC (its data source says so too).
  const connection = await createConnection({ uri: dbUrl, timezone: 'Z' });
  try {
    await connection.beginTransaction();
    for (const [pass, devices] of devicesByPass) {
      for (let offset = 0; offset < devices.length; offset += batchSize) {
        const now = new Date();
        const rows = devices
          .slice(offset, offset + batchSize)
          .map((device) => [
            newId(),
            pass.workspaceId,
            pass.id,
            device.holder?.id ?? null,
            device.holder?.serialNumber ?? pass.id,
            device.deviceLibraryId,
            device.pushToken,
            now,
            now,
            null,
          ]);
        await connection.query(
          'INSERT INTO wallet_a_registration (id, workspace_id, pass_id, holder_id, serial_number, device_library_id, push_token, created_time, updated_time, removed_time) VALUES ?',
          [rows],
        );
      }
      await connection.query(
        'UPDATE pass SET apple_issued_count = apple_issued_count + ?, apple_active_count = apple_active_count + ?, total_issued_count = total_issued_count + ?, total_active_count = total_active_count + ? WHERE id = ?',
        [devices.length, devices.length, devices.length, devices.length, pass.id],
      );
      await connection.query(
        'UPDATE holder h SET apple_installed_count = (SELECT COUNT(*) FROM wallet_a_registration r WHERE r.holder_id = h.id AND r.removed_time IS NULL) WHERE h.pass_id = ?',
        [pass.id],
      );
    }
    await connection.commit();
    await connection.query('ANALYZE TABLE wallet_a_registration');
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    await connection.end();
  }
}

/** Checks through the service's own API that the seeded devices count and are registered. */
export async function checkSeeded(
  api: Api,
  pass: CreatedPass,
  devices: SeedDevice[],
  before: PassCounters,
): Promise<PassCounters> {
  const after = await api.get<PassCounters>(`/v1/wallet-pass/${pass.id}`);
  const keys: Array<keyof PassCounters> = [
    'appleIssuedCount',
    'appleActiveCount',
    'totalIssuedCount',
    'totalActiveCount',
  ];
  for (const key of keys) {
    if (after[key] !== before[key] + devices.length) {
      throw new Error(
        `pass ${pass.id}: ${key} is ${after[key]}, expected ${before[key] + devices.length}`,
      );
    }
  }
  for (const device of [devices[0], devices[devices.length - 1]]) {
    const listed = (await lib.json(
      `${api.base}/passkit/v1/devices/${device.deviceLibraryId}/registrations/${PASS_TYPE_ID}`,
    )) as { serialNumbers: string[] } | null;
    const serialNumber = device.holder?.serialNumber ?? pass.id;
    if (listed?.serialNumbers.length !== 1 || listed.serialNumbers[0] !== serialNumber) {
      throw new Error(
        `PassKit lists ${JSON.stringify(listed)} for device ${device.deviceLibraryId}, expected ${serialNumber}`,
      );
    }
  }
  return after;
}

/**
 * `count` personal holders of the pass, made through the import API (10,000 a request, the most
 * one import takes), with their ids and serial numbers in externalId order. `more` adds to
 * the n-th row (e.g. its `fieldValues`) beside its externalId.
 */
export async function importHolders(
  api: Api,
  dbUrl: string,
  pass: CreatedPass,
  count: number,
  more: (n: number) => Record<string, unknown> = () => ({}),
): Promise<{ id: string; serialNumber: string }[]> {
  const perRequest = 10_000;
  for (let from = 0; from < count; from += perRequest) {
    const rows = Array.from({ length: Math.min(perRequest, count - from) }, (_, i) => ({
      externalId: `member-${String(from + i).padStart(7, '0')}`,
      ...more(from + i),
    }));
    await api.post(`/v1/wallet-pass/${pass.id}/holders/import`, rows);
  }
  const connection = await createConnection({ uri: dbUrl });
  try {
    const [rows] = await connection.query(
      'SELECT id, serial_number AS serialNumber FROM holder WHERE pass_id = ? ORDER BY external_id',
      [pass.id],
    );
    return rows as { id: string; serialNumber: string }[];
  } finally {
    await connection.end();
  }
}

/** Resident set size of a process (VmRSS), in bytes. */
export function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`No VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** CPU time (user + system) a process has used so far, in ms (bench/lib.js). */
export const cpuMsOf = (pid: number): number => lib.cpuMsOf(pid);

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The functions with the most self time in the `.cpuprofile` files of `dir`, counting only the
 * samples taken between `from` and `to` (ms since the epoch). The profile's clock is not the
 * wall clock: its end is taken to be `endedAt`, when the profiled process exited.
 */
export function topSelfTime(
  dir: string,
  window: { from: number; to: number; endedAt: number },
  limit = 20,
): { busyMs: number; top: Array<{ name: string; ms: number; share: number }> } {
  const totals = new Map<string, number>();
  let all = 0;
  let busy = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const names = new Map<number, string>();
    for (const node of profile.nodes) {
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url === '' ? '' : ` ${url.replace(`file://${ROOT}/`, '')}:${lineNumber + 1}`;
      names.set(node.id, `${functionName === '' ? '(anonymous)' : functionName}${where}`);
    }
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      const us = profile.timeDeltas[index] ?? 0;
      at += us;
      const wall = window.endedAt - (profile.endTime - at) / 1000;
      if (wall < window.from || wall > window.to) return;
      const name = names.get(id) ?? '?';
      totals.set(name, (totals.get(name) ?? 0) + us);
      all += us;
      if (name !== '(idle)') busy += us;
    });
  }
  return {
    busyMs: busy / 1000,
    top: [...totals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => ({ name, ms: us / 1000, share: all === 0 ? 0 : us / all })),
  };
}
