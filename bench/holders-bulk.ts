/**
 * bench:bulk — one bulk change of BENCH_HOLDERS (100,000) holders (target: a bulk
 * increment of 100,000 holders, their pushes included, in ≤ 60 s). On the built service and a
 * fresh MariaDB database: the API (WORKER_ENABLED=false) and a worker process
 * (`dist/apps/worker/src/main.js`, the API's environment) each in a process of their own, the
 * e2e tests' APNs fake (token auth on) in a third.
 *
 * A Published pass with a `points` face field; BENCH_HOLDERS holders imported through the API
 * (10,000 a request, each with its own `points`), each holding its copy on one WalletA device
 * (registrations bulk-inserted by SQL, as bench:fanout does). Then one
 * `POST /v1/wallet-pass/{id}/holders/bulk` `{"audience": {"installed": "walletA"},
 * "increment": {"points": 100}}`, timed from the POST to the change's Done (its
 * `finishedTime`) and to the last of the pushes it queued (the fake's receive time), every
 * device pushed. Checked: `matched` and `updated` equal to the holders, `skipped` 0, every token
 * pushed (exactly once, or the run says how many were pushed more), no answer but 200, and a
 * sample of holders read through the API with their points + 100.
 *
 *   BENCH_HOLDERS (default 100000)  BENCH_BATCH_SIZE (the worker's BULK_CHANGE_BATCH_SIZE;
 *   default the service's, 500)  BENCH_SAMPLE (holders checked through the API, default 200)
 *   BENCH_REDIS_URL: the API and the worker get it as REDIS_URL, so the worker wakes at once
 *   instead of at its next poll (SCHEDULER_INTERVAL_MS, 5 s)
 *   BENCH_PROFILE=1 (CPU profile of the worker, --cpu-prof: top self time between the POST and
 *   Done printed)  BENCH_WORKER_NODE_ARGS (extra node options of the worker)  BENCH_LOG_DIR
 *   (each process's whole output also written to a file there)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Api,
  checkSeeded,
  cpuMsOf,
  deviceLibraryId,
  importHolders,
  lib,
  pushToken,
  rssOf,
  seconds,
  seedRegistrations,
  startApnsFake,
  startNode,
  topSelfTime,
  uploadPassImages,
  waitForIdlePushJobs,
  WORKER_JS,
  type CreatedPass,
  type PassCounters,
} from './support';

const HOLDERS = Number(process.env.BENCH_HOLDERS ?? 100_000);
const BATCH_SIZE = process.env.BENCH_BATCH_SIZE;
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 200);
const REDIS_URL = process.env.BENCH_REDIS_URL;
const PROFILE = process.env.BENCH_PROFILE === '1';
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const PORT = 3107;
const TARGET_MS = 60_000;
const INCREMENT = 100;
const AUDIENCE = { installed: 'walletA' };

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
/** The points the n-th holder is imported with. */
const pointsOf = (n: number): number => n % 1000;

interface BulkChangeView {
  id: string;
  status: 'Pending' | 'Running' | 'Done' | 'Failed';
  matched: number | null;
  updated: number;
  skipped: number;
  failureReason: string | null;
  createdTime: string;
  finishedTime: string | null;
}

interface HolderView {
  id: string;
  externalId: string;
  fieldValues: Record<string, string>;
}

async function main(): Promise<void> {
  lib.printMachine();
  lib.requireBuild();
  if (!existsSync(WORKER_JS)) throw new Error(`${WORKER_JS} is missing: run npm run build`);

  const { fake, env: walletA } = await startApnsFake('counts');
  const redis: Record<string, string> = REDIS_URL === undefined ? {} : { REDIS_URL };
  const batch: Record<string, string> =
    BATCH_SIZE === undefined ? {} : { BULK_CHANGE_BATCH_SIZE: BATCH_SIZE };
  const service = await lib.startService('bulk', PORT, { ...walletA, ...redis, ...batch });
  lib.onCleanup(() => {
    if (service.proc.child.exitCode !== null) console.error(service.proc.output());
  });
  const api = new Api(service.base, service.apiKey);
  const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'wps-bench-profile-')) : undefined;
  const worker = startNode(
    'worker',
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...WORKER_NODE_ARGS,
      WORKER_JS,
    ],
    lib.serviceEnv(service.db.url, PORT, { ...walletA, ...redis, ...batch, LOG_LEVEL: 'info' }),
  );
  await worker.waitForOutput('Worker started', 60_000);

  const pass = await api.post<CreatedPass>('/v1/wallet-pass', {
    passName: 'Bulk change',
    passMetadata: {
      description: 'Loyalty card',
      organizationName: 'Brand Ltd',
      topField: { key: 'points', label: 'Points', value: '0' },
    },
    notificationHeader: 'Brand news',
    status: 'Published',
    uploadInfoList: await uploadPassImages(api),
  });
  const before = await api.get<PassCounters>(`/v1/wallet-pass/${pass.id}`);
  const importStarted = Date.now();
  const holders = await importHolders(api, service.db.url, pass, HOLDERS, (n) => ({
    fieldValues: { points: String(pointsOf(n)) },
  }));
  console.log(
    `imported ${holders.length} holders (${Math.ceil(HOLDERS / 10_000)} imports) in ${seconds(Date.now() - importStarted)}`,
  );
  // The pass's creation and the imports queued (device-less) update pushes: they must not meet
  // the seeded devices.
  await waitForIdlePushJobs(service.db.url);

  const tag = randomBytes(4).toString('hex');
  const devices = holders.map((holder, n) => ({
    deviceLibraryId: deviceLibraryId(tag, n),
    pushToken: pushToken(tag, n),
    holder,
  }));
  const tokens = devices.map((device) => device.pushToken);
  if (new Set(tokens).size !== tokens.length) throw new Error('push tokens are not distinct');
  const seedStarted = Date.now();
  await seedRegistrations(service.db.url, new Map([[pass, devices]]));
  await checkSeeded(api, pass, devices, before);
  const size = await api.post<{ holders: number; walletADevices: number }>(
    `/v1/wallet-pass/${pass.id}/audience`,
    { audience: AUDIENCE },
  );
  if (size.holders !== HOLDERS || size.walletADevices !== HOLDERS) {
    throw new Error(`the audience ${JSON.stringify(AUDIENCE)} is ${JSON.stringify(size)}`);
  }
  console.log(
    `seeded ${HOLDERS} registrations (one per holder) in ${seconds(Date.now() - seedStarted)}; ${JSON.stringify(AUDIENCE)} sizes ${size.holders} holders, ${size.walletADevices} devices`,
  );

  await fake.call({ kind: 'reset' });
  const rssBefore = rssOf(worker.pid);
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssOf(worker.pid));
    } catch {
      clearInterval(sampler);
    }
  }, 50);
  lib.onCleanup(() => clearInterval(sampler));
  const cpuBefore = cpuMsOf(worker.pid);
  const postedAt = Date.now();
  const created = await api.post<BulkChangeView>(`/v1/wallet-pass/${pass.id}/holders/bulk`, {
    audience: AUDIENCE,
    increment: { points: INCREMENT },
  });
  const answeredAt = Date.now();
  let runningSeenAt: number | null = null;
  let change: BulkChangeView;
  for (;;) {
    change = await api.get<BulkChangeView>(`/v1/wallet-pass/${pass.id}/holders/bulk/${created.id}`);
    if (change.status !== 'Pending') runningSeenAt ??= Date.now();
    if (change.status === 'Done' || change.status === 'Failed') break;
    if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.output()}`);
    if (Date.now() - postedAt > 8 * 60_000) throw new Error(`still ${change.status} after 8 min`);
    await lib.sleep(100);
  }
  const doneSeenAt = Date.now();
  const cpuAtDone = cpuMsOf(worker.pid);
  if (change.status !== 'Done') throw new Error(`bulk change Failed: ${change.failureReason}`);
  // The pushes: the one WalletA job the change queued when Done.
  await waitForIdlePushJobs(service.db.url, 5 * 60_000);
  const pushesIdleAt = Date.now();
  clearInterval(sampler);
  const cpuAtPushes = cpuMsOf(worker.pid);
  const stats = await fake.call({ kind: 'stats' });

  let missing = 0;
  let repeated = 0;
  for (const token of tokens) {
    const count = stats.counts.get(token) ?? 0;
    if (count === 0) missing++;
    else if (count > 1) repeated++;
  }
  const unknown = stats.counts.size - (tokens.length - missing);
  const errors = [...stats.answers].filter(([answer]) => answer !== '200');
  if (missing + unknown + errors.length > 0 || stats.lastPushAt === null) {
    throw new Error(
      `pushes: ${missing} tokens not pushed, ${unknown} unknown tokens pushed, other answers: ${JSON.stringify(errors)}`,
    );
  }
  if (change.matched !== HOLDERS || change.updated !== HOLDERS || change.skipped !== 0) {
    throw new Error(
      `bulk change: matched ${change.matched}, updated ${change.updated}, skipped ${change.skipped}; expected ${HOLDERS}, ${HOLDERS}, 0`,
    );
  }
  // A sample spread over the holders, read through the API.
  const step = Math.max(1, Math.floor(HOLDERS / SAMPLE));
  let checked = 0;
  for (let n = 0; n < HOLDERS; n += step) {
    const holder = await api.get<HolderView>(`/v1/wallet-pass/${pass.id}/holders/${holders[n].id}`);
    const expected = String(pointsOf(n) + INCREMENT);
    if (holder.fieldValues.points !== expected) {
      throw new Error(
        `holder ${holder.externalId}: points ${holder.fieldValues.points}, expected ${expected}`,
      );
    }
    checked++;
  }

  const finishedTime = Date.parse(change.finishedTime ?? new Date(doneSeenAt).toISOString());
  const toDone = finishedTime - postedAt;
  const toLastPush = stats.lastPushAt - postedAt;
  const firstPushAt = stats.firstPushAt ?? stats.lastPushAt;
  const batches = Math.ceil(HOLDERS / Number(BATCH_SIZE ?? 500));
  console.log(
    `bulk change ${change.id}: ${change.status}, matched ${change.matched}, updated ${change.updated}, skipped ${change.skipped}; ${checked} sampled holders read through the API with points + ${INCREMENT}`,
  );
  console.log(
    `  POST answered 202 +${seconds(answeredAt - postedAt)} → Running seen +${seconds((runningSeenAt ?? doneSeenAt) - postedAt)} → Done (finishedTime) +${seconds(toDone)} (seen +${seconds(doneSeenAt - postedAt)}) → first push +${seconds(firstPushAt - postedAt)} → last push +${seconds(toLastPush)} (push jobs idle seen +${seconds(pushesIdleAt - postedAt)})`,
  );
  console.log(
    `  batches of ${BATCH_SIZE ?? '500 (default)'}: ${batches}, ${((toDone - ((runningSeenAt ?? postedAt) - postedAt)) / batches).toFixed(0)} ms each on average from Running to Done; pushes ${tokens.length - missing} tokens (${repeated} more than once), first → last ${seconds(stats.lastPushAt - firstPushAt)} = ${(tokens.length / (Math.max(1, stats.lastPushAt - firstPushAt) / 1000)).toFixed(0)} pushes/s`,
  );
  console.log(
    `  worker CPU: POST → Done ${seconds(cpuAtDone - cpuBefore)}, Done → pushes idle ${seconds(cpuAtPushes - cpuAtDone)}; worker RSS ${mb(rssBefore)} → peak ${mb(peakRss)} (growth ${mb(peakRss - rssBefore)}); the worker ${REDIS_URL === undefined ? 'wakes at its poll' : 'is woken through Redis'}`,
  );
  console.log(
    '\n| holders | batch size | POST → Done | POST → last push (≤ 60 s) | pushes/s | devices pushed more than once | worker CPU (to Done / pushes) | worker RSS growth |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${HOLDERS} | ${BATCH_SIZE ?? 500} | ${seconds(toDone)} | ${seconds(toLastPush)} ${verdict(toLastPush <= TARGET_MS)} | ${(tokens.length / (Math.max(1, stats.lastPushAt - firstPushAt) / 1000)).toFixed(0)} | ${repeated} | ${seconds(cpuAtDone - cpuBefore)} / ${seconds(cpuAtPushes - cpuAtDone)} | ${mb(peakRss - rssBefore)} |`,
  );

  if (profileDir !== undefined) {
    await worker.stop();
    const profile = topSelfTime(profileDir, {
      from: postedAt,
      to: finishedTime,
      endedAt: Date.now(),
    });
    console.log(
      `\nworker CPU profile (${profileDir}, kept), POST → Done: busy ${seconds(profile.busyMs)} of ${seconds(toDone)}; top self time:`,
    );
    for (const entry of profile.top) {
      console.log(
        `  ${entry.ms.toFixed(0).padStart(7)} ms ${(100 * entry.share).toFixed(1).padStart(5)} %  ${entry.name}`,
      );
    }
  }
}

lib.run(main, 15 * 60_000);
