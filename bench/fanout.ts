/**
 * bench:fanout — one notification to BENCH_DEVICES (100,000) registered WalletA devices,
 * pushed by the worker process (`dist/apps/worker/src/main.js`) to the e2e tests' APNs fake
 * (token auth checked, own process), vs a bare `node:http2` client (apns-bare-client.ts)
 * pushing the same tokens to the same fake, once before and once after the service's run.
 * The API runs in its own process with WORKER_ENABLED=false, as in a scaled-out deployment.
 *
 *   BENCH_DEVICES (default 100000)  BENCH_BARE_STREAMS (default 500, what the worker keeps in
 *   flight)  BENCH_PROFILE=1 (CPU profile of the worker: --cpu-prof, top self time printed)
 *   BENCH_WORKER_NODE_ARGS (extra node options for the worker, space-separated)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareResult, FakeStats } from './rpc';
import {
  Api,
  checkSeeded,
  cpuMsOf,
  createPublishedPass,
  deviceLibraryId,
  FINAL_STATUSES,
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
/** Extra node options for the worker process, e.g. GC settings to compare. */
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const PORT = 3105;
const TARGET_MS = 10_000;
const TARGET_RATIO = 0.7;
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

async function main(): Promise<void> {
  lib.printMachine();
  lib.requireBuild();
  if (!existsSync(WORKER_JS)) throw new Error(`${WORKER_JS} is missing: run npm run build`);

  const { fake, env: walletA, maxConcurrentStreams } = await startApnsFake('counts');
  const service = await lib.startService('fanout', PORT, walletA);
  lib.onCleanup(() => {
    if (service.proc.child.exitCode !== null) console.error(service.proc.output());
  });
  const api = new Api(service.base, service.apiKey);

  // The worker gets the API's settings (same env), as README's scale-out section says.
  const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'wps-bench-profile-')) : undefined;
  const worker = startNode(
    'worker',
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...WORKER_NODE_ARGS,
      WORKER_JS,
    ],
    lib.serviceEnv(service.db.url, PORT, { ...walletA, LOG_LEVEL: 'info' }),
  );
  await worker.waitForOutput('Worker started', 60_000);

  const pass = await createPublishedPass(api, await uploadPassImages(api), 'Fan-out');
  const before = await api.get<PassCounters>(`/v1/wallet-pass/${pass.id}`);
  // The pass's creation queued a (device-less) update push; it must not meet the seeded devices.
  await waitForIdlePushJobs(service.db.url);

  const tag = randomBytes(4).toString('hex');
  const devices = Array.from({ length: DEVICES }, (_, n) => ({
    deviceLibraryId: deviceLibraryId(tag, n),
    pushToken: pushToken(tag, n),
  }));
  const tokens = devices.map((device) => device.pushToken);
  if (new Set(tokens).size !== tokens.length) throw new Error('push tokens are not distinct');
  const seedStarted = Date.now();
  await seedRegistrations(service.db.url, new Map([[pass, devices]]));
  const counters = await checkSeeded(api, pass, devices, before);
  console.log(
    `seeded ${DEVICES} registrations in ${seconds(Date.now() - seedStarted)}; the API reports appleActiveCount ${counters.appleActiveCount}, appleIssuedCount ${counters.appleIssuedCount}, totalActiveCount ${counters.totalActiveCount}; PassKit lists the pass for the first and last device`,
  );

  const bare1 = await bareRun(fake, walletA, tokens, 1);

  // The service: one notification, "send now".
  await fake.call({ kind: 'reset' });
  let baselineRss = 0;
  for (let i = 0; i < 1000 / RSS_EVERY_MS; i++) {
    baselineRss = Math.max(baselineRss, rssOf(worker.pid));
    await lib.sleep(RSS_EVERY_MS);
  }
  let peakRss = baselineRss;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssOf(worker.pid));
    } catch {
      // The worker is gone (a clean-up is under way): the run fails elsewhere.
      clearInterval(sampler);
    }
  }, RSS_EVERY_MS);
  lib.onCleanup(() => clearInterval(sampler));
  const cpuAtCreation = cpuMsOf(worker.pid);
  const createdAt = Date.now();
  const created = await api.post<NotificationView>('/v1/wallet-pass/notifications', {
    passSerialNumber: pass.id,
    notificationName: 'Fan-out bench',
    notificationMessage: 'Double points this weekend!',
  });
  let done: NotificationView;
  for (;;) {
    done = await api.get<NotificationView>(`/v1/wallet-pass/notifications/${created.id}`);
    if (FINAL_STATUSES.includes(done.status)) break;
    if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.output()}`);
    if (Date.now() - createdAt > 5 * 60_000) throw new Error(`still ${done.status} after 5 min`);
    await lib.sleep(100);
  }
  const finalSeenAt = Date.now();
  const workerCpuMs = cpuMsOf(worker.pid) - cpuAtCreation;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, rssOf(worker.pid));
  const stats = await fake.call({ kind: 'stats' });
  const window = pushWindow('service', stats, tokens);
  if (done.appleNotificationSentCount !== DEVICES) {
    throw new Error(
      `notification ${done.status}: appleNotificationSentCount ${done.appleNotificationSentCount}, expected ${DEVICES} (${done.failureReason})`,
    );
  }
  const createdTime = Date.parse(done.createdTime);
  const sentTime = Date.parse(done.sentTime ?? done.createdTime);
  const publishedTime = Date.parse(done.publishedTime ?? new Date(finalSeenAt).toISOString());
  console.log(
    `service: notification ${done.status} (${done.failureReason ?? 'no failure reason'}), appleNotificationSentCount ${done.appleNotificationSentCount}; fake saw peak ${stats.peakConcurrentStreams} concurrent streams, ${stats.sessionsOpened} session`,
  );
  console.log(
    `  created ${new Date(createdTime).toISOString()} → claimed (sentTime) +${seconds(sentTime - createdTime)} → first push +${seconds(window.firstPushAt - createdTime)} → last push +${seconds(window.lastPushAt - createdTime)} → final status (publishedTime) +${seconds(publishedTime - createdTime)} (seen by polling +${seconds(finalSeenAt - createdAt)})`,
  );
  console.log(
    `  first → last push ${seconds(window.lastPushAt - window.firstPushAt)} = ${window.rate.toFixed(0)} pushes/s; first push → final ${seconds(publishedTime - window.firstPushAt)}; claim → final ${seconds(publishedTime - sentTime)}`,
  );
  console.log(
    `  CPU per push (creation → final): worker ${perPush(workerCpuMs, tokens.length)}, fake ${perPush(stats.cpuMs, tokens.length)}`,
  );
  console.log(
    `  worker RSS: baseline ${mb(baselineRss)} (max over 1 s before), peak ${mb(peakRss)}, growth ${mb(peakRss - baselineRss)}`,
  );

  const bare2 = await bareRun(fake, walletA, tokens, 2);
  // Garbage or kept? By now the worker has been idle for as long as the bare run took.
  console.log(
    `worker RSS ${seconds(Date.now() - finalSeenAt)} after the notification finished: ${mb(rssOf(worker.pid))}`,
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
  const growth = peakRss - baselineRss;
  console.log(
    '\n| devices | service first → last push | service pushes/s | bare pushes/s (before / after) | ratio (≥ 70 %) | CPU per push: worker / bare client | claim → final (≤ 10 s) | creation → final | worker RSS base / peak / growth (≤ 100 MB) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${DEVICES} | ${seconds(window.lastPushAt - window.firstPushAt)} | ${window.rate.toFixed(0)} | ${bare1.window.rate.toFixed(0)} / ${bare2.window.rate.toFixed(0)} | ${(100 * ratio).toFixed(0)} % ${verdict(ratio >= TARGET_RATIO)} | ${perPush(workerCpuMs, tokens.length)} / ${perPush((bare1.result.cpuMs + bare2.result.cpuMs) / 2, tokens.length)} | ${seconds(claimToFinal)} ${verdict(claimToFinal <= TARGET_MS)} | ${seconds(createdToFinal)} ${verdict(createdToFinal <= TARGET_MS)} | ${mb(baselineRss)} / ${mb(peakRss)} / ${mb(growth)} ${verdict(growth <= TARGET_GROWTH_BYTES)} |`,
  );

  if (profileDir !== undefined) {
    await worker.stop();
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

lib.run(main, 10 * 60_000);
