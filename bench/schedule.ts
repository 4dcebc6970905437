/**
 * bench:schedule — how late scheduled notifications go out at default settings: the service
 * as `npm start` runs it (one process, the worker inside, SCHEDULER_INTERVAL_MS unset), the
 * e2e tests' APNs fake in its own process. BENCH_NOTIFICATIONS notifications, each on a pass of
 * its own with BENCH_DEVICES_PER_PASS registered devices, are scheduled a few seconds ahead at
 * staggered times (BENCH_SPACING_MS apart plus up to 300 ms of jitter, so they fall anywhere
 * between the worker's polls); the delay of each is its first push as the fake received it
 * minus its scheduledTime.
 *
 *   BENCH_NOTIFICATIONS (default 100)  BENCH_DEVICES_PER_PASS (default 3)
 *   BENCH_SPACING_MS (default 700)  BENCH_LEAD_MS (default 10000: first scheduledTime from now)
 */
import { randomBytes } from 'node:crypto';
import {
  Api,
  checkSeeded,
  createPublishedPass,
  deviceLibraryId,
  FINAL_STATUSES,
  lib,
  pushToken,
  seconds,
  seedRegistrations,
  startApnsFake,
  uploadPassImages,
  waitForIdlePushJobs,
  type CreatedPass,
  type NotificationView,
  type PassCounters,
  type SeedDevice,
} from './support';

const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 100);
const DEVICES_PER_PASS = Number(process.env.BENCH_DEVICES_PER_PASS ?? 3);
const SPACING_MS = Number(process.env.BENCH_SPACING_MS ?? 700);
const LEAD_MS = Number(process.env.BENCH_LEAD_MS ?? 10_000);
const JITTER_MS = 300;
const PORT = 3106;
const TARGET_P99_MS = 2000;

interface Scheduled {
  pass: CreatedPass;
  devices: SeedDevice[];
  at: number;
  id?: string;
  createdLate?: boolean;
}

async function main(): Promise<void> {
  lib.printMachine();
  const { fake, env: walletA } = await startApnsFake('all');
  // As `npm start` runs it: the worker in the API process, every worker setting left alone.
  const service = await lib.startService('schedule', PORT, { ...walletA, WORKER_ENABLED: 'true' });
  lib.onCleanup(() => {
    if (service.proc.child.exitCode !== null) console.error(service.proc.output());
  });
  const api = new Api(service.base, service.apiKey);

  const images = await uploadPassImages(api);
  const tag = randomBytes(4).toString('hex');
  const plan: Scheduled[] = [];
  const before = new Map<CreatedPass, PassCounters>();
  for (let i = 0; i < NOTIFICATIONS; i++) {
    const pass = await createPublishedPass(api, images, `Schedule ${i}`);
    before.set(pass, await api.get<PassCounters>(`/v1/wallet-pass/${pass.id}`));
    const devices = Array.from({ length: DEVICES_PER_PASS }, (_, d) => ({
      deviceLibraryId: deviceLibraryId(tag, i * DEVICES_PER_PASS + d),
      pushToken: pushToken(tag, i * DEVICES_PER_PASS + d),
    }));
    plan.push({ pass, devices, at: 0 });
  }
  // The passes' creation queued (device-less) update pushes; they must not meet the devices.
  await waitForIdlePushJobs(service.db.url);
  await seedRegistrations(service.db.url, new Map(plan.map((item) => [item.pass, item.devices])));
  for (const item of plan) await checkSeeded(api, item.pass, item.devices, before.get(item.pass)!);
  console.log(
    `${NOTIFICATIONS} Published passes with ${DEVICES_PER_PASS} registered devices each (counters and PassKit checked through the API)`,
  );

  await fake.call({ kind: 'reset' });
  const start = Date.now() + LEAD_MS;
  for (const [i, item] of plan.entries()) {
    item.at = start + i * SPACING_MS + Math.floor(Math.random() * JITTER_MS);
  }
  for (const item of plan) {
    const created = await api.post<NotificationView>('/v1/wallet-pass/notifications', {
      passSerialNumber: item.pass.id,
      notificationName: `Scheduled ${item.pass.id}`,
      notificationMessage: 'Happy hour starts now',
      status: 'Scheduled',
      scheduledTime: new Date(item.at).toISOString(),
    });
    item.id = created.id;
    // Created after its time, it would measure the create, not the schedule.
    item.createdLate = Date.now() >= item.at;
  }
  const createdLate = plan.filter((item) => item.createdLate === true).length;
  console.log(
    `created ${NOTIFICATIONS} Scheduled notifications, ${seconds(plan[0].at - Date.now())} before the first is due; they span ${seconds(plan[plan.length - 1].at - plan[0].at)}${createdLate > 0 ? `; ${createdLate} were created after their time (left out)` : ''}`,
  );

  const views = new Map<string, NotificationView>();
  const deadline = plan[plan.length - 1].at + 60_000;
  for (;;) {
    for (const item of plan) {
      if (views.has(item.id!)) continue;
      const view = await api.get<NotificationView>(`/v1/wallet-pass/notifications/${item.id}`);
      if (FINAL_STATUSES.includes(view.status)) views.set(item.id!, view);
    }
    if (views.size === plan.length) break;
    if (Date.now() > deadline) {
      throw new Error(`${plan.length - views.size} notifications not finished a minute late`);
    }
    await lib.sleep(250);
  }

  const pushes = await fake.call({ kind: 'pushes' });
  const stats = await fake.call({ kind: 'stats' });
  const errors = [...stats.answers].filter(([answer]) => answer !== '200');
  if (errors.length > 0) throw new Error(`the fake answered ${JSON.stringify(errors)}`);
  const firstByToken = new Map<string, number>();
  for (const push of pushes) {
    firstByToken.set(push.token, Math.min(firstByToken.get(push.token) ?? Infinity, push.at));
  }
  const rows: Array<{ delay: number; claim: number; index: number }> = [];
  for (const [index, item] of plan.entries()) {
    const view = views.get(item.id!)!;
    for (const device of item.devices) {
      if (stats.counts.get(device.pushToken) !== 1) {
        throw new Error(
          `notification ${item.id}: device ${device.pushToken} pushed ${stats.counts.get(device.pushToken) ?? 0} times`,
        );
      }
    }
    if (view.appleNotificationSentCount !== DEVICES_PER_PASS) {
      throw new Error(
        `notification ${item.id} ${view.status}: appleNotificationSentCount ${view.appleNotificationSentCount}`,
      );
    }
    if (item.createdLate === true) continue;
    const first = Math.min(...item.devices.map((device) => firstByToken.get(device.pushToken)!));
    const scheduled = Date.parse(view.scheduledTime!);
    rows.push({
      delay: first - scheduled,
      claim: Date.parse(view.sentTime!) - scheduled,
      index,
    });
  }
  if (pushes.length !== NOTIFICATIONS * DEVICES_PER_PASS) {
    throw new Error(`${pushes.length} pushes, expected ${NOTIFICATIONS * DEVICES_PER_PASS}`);
  }

  const delays = rows.map((row) => row.delay).sort((a, b) => a - b);
  const claims = rows.map((row) => row.claim).sort((a, b) => a - b);
  const pct = (sorted: number[], p: number): string => `${lib.percentile(sorted, p).toFixed(0)}`;
  const worst = rows.reduce((a, b) => (b.delay > a.delay ? b : a));
  const late = rows.filter((row) => row.delay > TARGET_P99_MS).length;
  console.log(
    `every device pushed exactly once (${pushes.length} pushes); scheduledTime → claimed (sentTime): p50 ${pct(claims, 50)} / p99 ${pct(claims, 99)} ms`,
  );
  console.log(
    `worst: ${worst.delay} ms, notification ${worst.index + 1} of ${plan.length} (claimed ${worst.claim} ms after its time); ${late} of ${rows.length} later than ${TARGET_P99_MS} ms; min ${delays[0]} ms`,
  );
  const p99 = lib.percentile(delays, 99);
  console.log(
    '\n| notifications × devices | scheduledTime → first push p50 / p95 / p99 / max (ms) | target p99 ≤ 2 s |',
  );
  console.log('|---|---|---|');
  console.log(
    `| ${rows.length} × ${DEVICES_PER_PASS} | ${pct(delays, 50)} / ${pct(delays, 95)} / ${pct(delays, 99)} / ${delays[delays.length - 1]} | ${p99 <= TARGET_P99_MS ? 'met' : 'MISSED'} |`,
  );
}

lib.run(main, 5 * 60_000);
