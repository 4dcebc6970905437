/**
 * bench:fanout — one notification to BENCH_DEVICES (100,000) registered WalletA devices,
 * pushed by the worker process (`dist/apps/worker/src/main.js`) to the e2e tests' APNs fake
 * (token auth checked, own process), vs a bare `node:http2` client (apns-bare-client.ts)
 * pushing the same tokens to the same fake, once before and once after the service's run.
 * The API runs in its own process with WORKER_ENABLED=false, as in a scaled-out deployment.
 *
 *   BENCH_DEVICES (default 100000)  BENCH_BARE_STREAMS (default 500, what the worker keeps in
 *   flight)  BENCH_PROFILE=1 (CPU profile of the worker: --cpu-prof, top self time printed)
 *   BENCH_WORKER_NODE_ARGS / BENCH_BARE_NODE_ARGS (extra node options for the worker / the bare
 *   client, space-separated, e.g. `--require ./bench/heap-log.js`)  BENCH_BARE_LEAN_BIND=1 (the
 *   bare client installs the worker's lean `AsyncResource.bind` too: a like-for-like baseline)
 *   BENCH_AUDIENCE=holders: each device holds the personal copy of a holder of its own
 *   (BENCH_DEVICES holders, imported through the API), the notification reaching every holder
 *   (target: as fast as as many devices of the shared pass)
 *   BENCH_AUDIENCE=segment: the same holders, plus a segment of the pass that matches every one
 *   of them (`{"createdAfter": <a second before the import>}`), and the notification is made
 *   with its `segmentId`: the service evaluates the audience when it sends, snapshots the
 *   matched holders and pushes only their devices (target: ≥ 90 % of the bare client's
 *   rate). Checked: `audienceSize` equal to BENCH_DEVICES
 *   BENCH_WORKERS (default 1): that many worker processes share the notification (its shards,
 *   NOTIFICATION_SHARD_SIZE devices each); CPU per push is theirs together, RSS growth the
 *   largest of theirs
 *   BENCH_REDIS_URL: the API and the workers get it as REDIS_URL, so the notification and its
 *   shards wake every worker at once instead of at its next poll (SCHEDULER_INTERVAL_MS, 5 s)
 *   BENCH_LOG_DIR: each process's whole output is also written to a file there (e.g. the
 *   worker's `--trace-gc-nvp` lines)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import type { BareResult, FakeStats } from './rpc';
import {
  Api,
  checkSeeded,
  cpuMsOf,
  createPublishedPass,
  deviceLibraryId,
  FINAL_STATUSES,
  importHolders,
  lib,
  pushToken,
  rssOf,
  runBareClient,
  seconds,
  seedRegistrations,
  startApnsFake,
  startNode,
  topSelfTime,
  uploadPassImages,
  waitForIdlePushJobs,
  WORKER_JS,
  type FakeClient,
  type NotificationView,
  type PassCounters,
} from './support';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const BARE_STREAMS = Number(process.env.BENCH_BARE_STREAMS ?? 500);
const PROFILE = process.env.BENCH_PROFILE === '1';
const AUDIENCES = ['shared', 'holders', 'segment'] as const;
const AUDIENCE = (process.env.BENCH_AUDIENCE ?? 'shared') as (typeof AUDIENCES)[number];
/** Each device holds a holder's own copy (the holders and segment audiences). */
const PERSONAL = AUDIENCE !== 'shared';
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const REDIS_URL = process.env.BENCH_REDIS_URL;
/** Extra node options for the worker process, e.g. GC settings to compare. */
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const PORT = 3105;
const TARGET_MS = 10_000;
/** Of the bare client's rate: any notification, or one to a 100,000-holder segment. */
const TARGET_RATIO = AUDIENCE === 'segment' ? 0.9 : 0.75;
const TARGET_GROWTH_BYTES = 100e6;
const RSS_EVERY_MS = 50;

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const perPush = (ms: number, pushes: number): string => `${((1000 * ms) / pushes).toFixed(0)} µs`;
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');

interface PushWindow {
  firstPushAt: number;
  lastPushAt: number;
  rate: number;
}

/** Every token pushed exactly once, nothing else pushed, no error answers; else throws. */
function pushWindow(label: string, stats: FakeStats, tokens: string[]): PushWindow {
  let missing = 0;
  let repeated = 0;
  for (const token of tokens) {
    const count = stats.counts.get(token) ?? 0;
    if (count === 0) missing++;
    else if (count > 1) repeated++;
  }
  const unknown = stats.counts.size - (tokens.length - missing);
  const errors = [...stats.answers].filter(([answer]) => answer !== '200');
  if (missing + repeated + unknown + errors.length > 0 || stats.firstPushAt === null) {
    throw new Error(
      `${label}: ${missing} tokens not pushed, ${repeated} pushed more than once, ${unknown} unknown tokens pushed, other answers: ${JSON.stringify(errors)}`,
    );
  }
  const firstPushAt = stats.firstPushAt;
  const lastPushAt = stats.lastPushAt ?? firstPushAt;
  return {
    firstPushAt,
    lastPushAt,
    rate: tokens.length / (Math.max(1, lastPushAt - firstPushAt) / 1000),
  };
}

/** Headers of the two samples that differ, beyond those that differ per push. */
function headerDifferences(a: FakeStats['sample'], b: FakeStats['sample']): string[] {
  if (a === null || b === null) return ['no sample'];
  const perPush = new Set([':path', 'apns-id', 'authorization']);
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
  const differences = [...names]
    .filter((name) => !perPush.has(name) && a.headers[name] !== b.headers[name])
    .map((name) => `${name}: ${a.headers[name]} vs ${b.headers[name]}`);
  for (const name of perPush) {
    if ((a.headers[name] === undefined) !== (b.headers[name] === undefined)) {
      differences.push(`${name} only on one side`);
    }
  }
  if (a.rawPayload !== b.rawPayload) differences.push(`payload ${a.rawPayload} vs ${b.rawPayload}`);
  return differences;
}

async function bareRun(
  fake: FakeClient,
  fakeEnv: Record<string, string>,
  tokens: string[],
  round: number,
): Promise<{ window: PushWindow; result: BareResult; stats: FakeStats }> {
  await fake.call({ kind: 'reset' });
  const result = await runBareClient(fakeEnv, tokens, BARE_STREAMS);
  const stats = await fake.call({ kind: 'stats' });
  if (result.ok !== tokens.length) {
    throw new Error(
      `bare client: ${result.ok} accepted, failures ${JSON.stringify(result.failed)}`,
    );
  }
  const window = pushWindow('bare client', stats, tokens);
  console.log(
    `bare client run ${round}: ${tokens.length} pushes in ${seconds(window.lastPushAt - window.firstPushAt)} = ${window.rate.toFixed(0)} pushes/s (${result.streams} streams, fake saw peak ${stats.peakConcurrentStreams} concurrent, ${stats.sessionsOpened} session); CPU per push: client ${perPush(result.cpuMs, tokens.length)}, fake ${perPush(stats.cpuMs, tokens.length)}; client RSS ${mb(result.startRssBytes)} → peak ${mb(result.peakRssBytes)}`,
  );
  return { window, result, stats };
}

/** How many shards each worker process pushed (by the pid in the shards' `leased_by`). */
async function shardsPerWorker(
  dbUrl: string,
  notificationId: string,
  pids: number[],
): Promise<number[]> {
  const connection = await createConnection(dbUrl);
  try {
    const [rows] = await connection.query<RowDataPacket[]>(
      'SELECT leased_by FROM notification_shard WHERE notification_id = ?',
      [notificationId],
    );
    const pidsOfShards = rows.map((row) => Number(String(row.leased_by).split(':').at(-2)));
    return pids.map((pid) => pidsOfShards.filter((of) => of === pid).length);
  } finally {
    await connection.end();
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(WORKERS) || WORKERS < 1)
    throw new Error('BENCH_WORKERS: a whole number ≥ 1');
  if (!AUDIENCES.includes(AUDIENCE)) {
    throw new Error(`BENCH_AUDIENCE: one of ${AUDIENCES.join(', ')}`);
  }
  lib.printMachine();
  lib.requireBuild();
  if (!existsSync(WORKER_JS)) throw new Error(`${WORKER_JS} is missing: run npm run build`);

  const { fake, env: walletA, maxConcurrentStreams } = await startApnsFake('counts');
  const redis: Record<string, string> = REDIS_URL === undefined ? {} : { REDIS_URL };
  const service = await lib.startService('fanout', PORT, { ...walletA, ...redis });
  lib.onCleanup(() => {
    if (service.proc.child.exitCode !== null) console.error(service.proc.output());
  });
  const api = new Api(service.base, service.apiKey);

  // The worker gets the API's settings (same env), as docs/operations.md's scale-out section says.
  const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'wps-bench-profile-')) : undefined;
  const workers = Array.from({ length: WORKERS }, (_, n) =>
    startNode(
      `worker ${n + 1}`,
      [
        ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        ...WORKER_NODE_ARGS,
        WORKER_JS,
      ],
      lib.serviceEnv(service.db.url, PORT, { ...walletA, ...redis, LOG_LEVEL: 'info' }),
    ),
  );
  await Promise.all(workers.map((worker) => worker.waitForOutput('Worker started', 60_000)));
  const workersRss = () => workers.map((worker) => rssOf(worker.pid));
  const workersCpuMs = () => workers.reduce((sum, worker) => sum + cpuMsOf(worker.pid), 0);

  const pass = await createPublishedPass(api, await uploadPassImages(api), 'Fan-out');
  const before = await api.get<PassCounters>(`/v1/wallet-pass/${pass.id}`);
  // Holders are made after this: a second back, whatever the clocks' rounding.
  const beforeImport = new Date(Date.now() - 1000).toISOString();
  const holders = PERSONAL ? await importHolders(api, service.db.url, pass, DEVICES) : [];
  const segment =
    AUDIENCE === 'segment'
      ? await api.post<{ id: string }>(`/v1/wallet-pass/${pass.id}/segments`, {
          name: 'Everyone imported',
          audience: { createdAfter: beforeImport },
        })
      : undefined;
  // The pass's creation (and the import) queued (device-less) update pushes; they must not meet
  // the seeded devices.
  await waitForIdlePushJobs(service.db.url);

  const tag = randomBytes(4).toString('hex');
  const devices = Array.from({ length: DEVICES }, (_, n) => ({
    deviceLibraryId: deviceLibraryId(tag, n),
    pushToken: pushToken(tag, n),
    ...(PERSONAL ? { holder: holders[n] } : {}),
  }));
  const tokens = devices.map((device) => device.pushToken);
  if (new Set(tokens).size !== tokens.length) throw new Error('push tokens are not distinct');
  const seedStarted = Date.now();
  await seedRegistrations(service.db.url, new Map([[pass, devices]]));
  const counters = await checkSeeded(api, pass, devices, before);
  console.log(
    `seeded ${DEVICES} registrations (${PERSONAL ? "each of a holder's own copy" : 'of the shared pass'}) in ${seconds(Date.now() - seedStarted)}; the API reports appleActiveCount ${counters.appleActiveCount}, appleIssuedCount ${counters.appleIssuedCount}, totalActiveCount ${counters.totalActiveCount}; PassKit lists the pass for the first and last device`,
  );

  const bare1 = await bareRun(fake, walletA, tokens, 1);

  // The service: one notification, "send now".
  await fake.call({ kind: 'reset' });
  // Per worker process: its baseline (the most over 1 s before) and its peak.
  const baselineRss = workers.map(() => 0);
  const maxInto = (into: number[], values: number[]) =>
    values.forEach((value, n) => (into[n] = Math.max(into[n], value)));
  for (let i = 0; i < 1000 / RSS_EVERY_MS; i++) {
    maxInto(baselineRss, workersRss());
    await lib.sleep(RSS_EVERY_MS);
  }
  const peakRss = [...baselineRss];
  const sampler = setInterval(() => {
    try {
      maxInto(peakRss, workersRss());
    } catch {
      // The worker is gone (a clean-up is under way): the run fails elsewhere.
      clearInterval(sampler);
    }
  }, RSS_EVERY_MS);
  lib.onCleanup(() => clearInterval(sampler));
  const cpuAtCreation = workersCpuMs();
  const createdAt = Date.now();
  const created = await api.post<NotificationView>('/v1/wallet-pass/notifications', {
    passSerialNumber: pass.id,
    notificationName: 'Fan-out bench',
    notificationMessage: 'Double points this weekend!',
    ...(segment === undefined ? {} : { segmentId: segment.id }),
  });
  let done: NotificationView;
  for (;;) {
    done = await api.get<NotificationView>(`/v1/wallet-pass/notifications/${created.id}`);
    if (FINAL_STATUSES.includes(done.status)) break;
    const exited = workers.find((worker) => worker.child.exitCode !== null);
    if (exited) throw new Error(`a worker exited:\n${exited.output()}`);
    if (Date.now() - createdAt > 5 * 60_000) throw new Error(`still ${done.status} after 5 min`);
    await lib.sleep(100);
  }
  const finalSeenAt = Date.now();
  const workerCpuMs = workersCpuMs() - cpuAtCreation;
  clearInterval(sampler);
  maxInto(peakRss, workersRss());
  // The process that grew most: the target is per process.
  const grown = peakRss
    .map((peak, n) => ({ n, growth: peak - baselineRss[n] }))
    .reduce((a, b) => (b.growth > a.growth ? b : a));
  const shards = await shardsPerWorker(
    service.db.url,
    created.id,
    workers.map((worker) => worker.pid),
  );
  const stats = await fake.call({ kind: 'stats' });
  const window = pushWindow('service', stats, tokens);
  if (segment !== undefined && done.audienceSize !== DEVICES) {
    throw new Error(
      `notification ${done.status}: audienceSize ${done.audienceSize}, expected ${DEVICES}`,
    );
  }
  if (done.appleNotificationSentCount !== DEVICES) {
    throw new Error(
      `notification ${done.status}: appleNotificationSentCount ${done.appleNotificationSentCount}, expected ${DEVICES} (${done.failureReason})`,
    );
  }
  const createdTime = Date.parse(done.createdTime);
  const sentTime = Date.parse(done.sentTime ?? done.createdTime);
  const publishedTime = Date.parse(done.publishedTime ?? new Date(finalSeenAt).toISOString());
  console.log(
    `service: notification ${done.status} (${done.failureReason ?? 'no failure reason'}), appleNotificationSentCount ${done.appleNotificationSentCount}${segment === undefined ? '' : `, audienceSize ${done.audienceSize} (segment ${segment.id})`}; fake saw peak ${stats.peakConcurrentStreams} concurrent streams, ${stats.sessionsOpened} session`,
  );
  console.log(
    `  created ${new Date(createdTime).toISOString()} → claimed (sentTime) +${seconds(sentTime - createdTime)} → first push +${seconds(window.firstPushAt - createdTime)} → last push +${seconds(window.lastPushAt - createdTime)} → final status (publishedTime) +${seconds(publishedTime - createdTime)} (seen by polling +${seconds(finalSeenAt - createdAt)})`,
  );
  console.log(
    `  first → last push ${seconds(window.lastPushAt - window.firstPushAt)} = ${window.rate.toFixed(0)} pushes/s; first push → final ${seconds(publishedTime - window.firstPushAt)}; claim → final ${seconds(publishedTime - sentTime)}`,
  );
  console.log(
    `  ${WORKERS} worker process${WORKERS === 1 ? '' : 'es'}; shards pushed per worker: ${shards.join(' / ')} (of ${shards.reduce((a, b) => a + b, 0)})`,
  );
  console.log(
    `  CPU per push (creation → final): worker${WORKERS === 1 ? '' : 's together'} ${perPush(workerCpuMs, tokens.length)}, fake ${perPush(stats.cpuMs, tokens.length)}`,
  );
  workers.forEach((_, n) =>
    console.log(
      `  worker ${n + 1} RSS: baseline ${mb(baselineRss[n])} (max over 1 s before), peak ${mb(peakRss[n])}, growth ${mb(peakRss[n] - baselineRss[n])}`,
    ),
  );

  const bare2 = await bareRun(fake, walletA, tokens, 2);
  // Garbage or kept? By now the worker has been idle for as long as the bare run took.
  console.log(
    `worker RSS ${seconds(Date.now() - finalSeenAt)} after the notification finished: ${workersRss().map(mb).join(' / ')}`,
  );
  const differences = headerDifferences(stats.sample, bare1.stats.sample);
  console.log(
    `same request as the worker's (headers other than :path/apns-id/authorization, payload): ${differences.length === 0 ? 'yes' : `NO: ${differences.join('; ')}`}`,
  );
  console.log(
    `bare client streams: ${BARE_STREAMS} (the worker's default, 1 connection × 500; the fake allows ${maxConcurrentStreams})`,
  );

  const bareRate = (bare1.window.rate + bare2.window.rate) / 2;
  const ratio = window.rate / bareRate;
  const claimToFinal = publishedTime - sentTime;
  const createdToFinal = publishedTime - createdTime;
  const growth = grown.growth;
  console.log(
    `\n| audience | workers | devices | service first → last push | service pushes/s | bare pushes/s (before / after) | ratio (≥ ${100 * TARGET_RATIO} %) | CPU per push: worker / bare client | claim → final (≤ 10 s) | creation → final | worker RSS base / peak / growth (≤ 100 MB; the worker that grew most) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${AUDIENCE} | ${WORKERS} | ${DEVICES} | ${seconds(window.lastPushAt - window.firstPushAt)} | ${window.rate.toFixed(0)} | ${bare1.window.rate.toFixed(0)} / ${bare2.window.rate.toFixed(0)} | ${(100 * ratio).toFixed(0)} % ${verdict(ratio >= TARGET_RATIO)} | ${perPush(workerCpuMs, tokens.length)} / ${perPush((bare1.result.cpuMs + bare2.result.cpuMs) / 2, tokens.length)} | ${seconds(claimToFinal)} ${verdict(claimToFinal <= TARGET_MS)} | ${seconds(createdToFinal)} ${verdict(createdToFinal <= TARGET_MS)} | ${mb(baselineRss[grown.n])} / ${mb(peakRss[grown.n])} / ${mb(growth)} ${verdict(growth <= TARGET_GROWTH_BYTES)} |`,
  );

  if (profileDir !== undefined) {
    await Promise.all(workers.map((worker) => worker.stop()));
    const profile = topSelfTime(profileDir, {
      from: window.firstPushAt,
      to: window.lastPushAt,
      endedAt: Date.now(),
    });
    console.log(
      `\nworker CPU profile (${profileDir}, kept), first → last push: busy ${seconds(profile.busyMs)} of ${seconds(window.lastPushAt - window.firstPushAt)}; top self time:`,
    );
    for (const entry of profile.top) {
      console.log(
        `  ${entry.ms.toFixed(0).padStart(7)} ms ${(100 * entry.share).toFixed(1).padStart(5)} %  ${entry.name}`,
      );
    }
  }
}

// Ten minutes for the default 100,000 devices; a million (seeding included) needs longer.
lib.run(main, Math.max(10 * 60_000, DEVICES * 1.5));
