'use strict';
/**
 * bench:registrations — Apple's PassKit web service under a launch: how fast one
 * pass takes device registrations, and what recording pass fetches (confirmations) costs a
 * fetch. On the built service, on SQLite and on MariaDB (a fresh database each), no worker:
 *
 *   1. A Published pass made through the API; its authenticationToken read from its package,
 *      as a device does.
 *   2. Registrations: BENCH_REGISTRATIONS distinct devices register that one shared pass
 *      (`POST /passkit/v1/devices/{device}/registrations/{passTypeId}/{serial}`, each its own
 *      push token) over BENCH_CONNECTIONS keep-alive connections (autocannon), spread over
 *      BENCH_SOURCES client addresses in X-Forwarded-For (TRUST_PROXY_HOPS=1), after a warm-up
 *      of BENCH_WARMUP registrations of another pass. Registrations/s, latency, the service's
 *      CPU per registration; every answer must be 201 and appleIssuedCount = appleActiveCount =
 *      BENCH_REGISTRATIONS afterwards. On MariaDB, in the same run and under the same load
 *      (connections, sources, devices), bench/baseline-registrations-server.js: bare Express +
 *      mysql2, one INSERT of the registration row per request (the service's SQL for it), run
 *      before and after the service on a pass of its own; ratio = service ÷ the mean of the two
 *      (target ≥ 90 %).
 *   3. Fetches: two fresh processes on the same database, one with PASSKIT_FETCH_CONFIRMATIONS
 *      `true`, one `false`; `GET /passkit/v1/passes/{passTypeId}/{serial}` with the
 *      pass's token, every other request with If-Modified-Since of the current version (so half
 *      are 200 with the package, half 304), BENCH_FETCH_CONNECTIONS connections for
 *      BENCH_FETCH_DURATION seconds, alternately, in the order on, off, off, on, on, off, …
 *      (BENCH_FETCH_ROUNDS pairs, even by default) so that drift of the shared machine falls on
 *      both: with on, off, on, off a load that falls (or rises) through the run favours the
 *      second of every pair. Ratio = on ÷ off (target ≥ 90 %): of the mean rates, and the
 *      median of the rounds' ratios (short rounds, many of them: other work on a shared machine
 *      moves one run by ±30 %).
 *
 *   BENCH_REGISTRATIONS (20000)  BENCH_CONNECTIONS (64)  BENCH_SOURCES (200)  BENCH_WARMUP (2000)
 *   BENCH_FETCH_CONNECTIONS (32)  BENCH_FETCH_DURATION (s, 4)  BENCH_FETCH_ROUNDS (6)
 *   BENCH_FETCH_WARMUP (s per process, 5)  BENCH_FETCH_TAIL_MS (1000: after each fetch run, still
 *   counted in its CPU, so that buffered confirmations written then are charged to it)
 *   BENCH_DATABASES (sqlite,mysql)
 *   BENCH_PORT (3150; the fetch processes BENCH_PORT + 1, + 2)  BENCH_MYSQL_URL (lib.js)
 *   BENCH_SERVICE_NODE_ARGS (extra node options of both service processes, space-separated,
 *   e.g. --cpu-prof --cpu-prof-dir=/tmp/registrations-profile)
 */
const autocannon = require('autocannon');
const { join } = require('node:path');
const lib = require('./lib');

const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SOURCES = Number(process.env.BENCH_SOURCES ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);
const FETCH_CONNECTIONS = Number(process.env.BENCH_FETCH_CONNECTIONS ?? 32);
const FETCH_DURATION = Number(process.env.BENCH_FETCH_DURATION ?? 4);
const FETCH_ROUNDS = Number(process.env.BENCH_FETCH_ROUNDS ?? 6);
const FETCH_WARMUP = Number(process.env.BENCH_FETCH_WARMUP ?? 5);
const FETCH_TAIL_MS = Number(process.env.BENCH_FETCH_TAIL_MS ?? 1000);
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mysql').split(',');
const PORT = Number(process.env.BENCH_PORT ?? 3150);

/** The service's default pass type identifier (the bench sets no WalletA settings). */
const PASS_TYPE_ID = 'pass.com.example.wallet-pass-service';
/** What one source keeps of one shared pass by default (PASSKIT_DEVICES_PER_SOURCE). */
const DEVICES_PER_SOURCE = 5_000;

const sourceAddress = (n) =>
  `198.18.${Math.floor((n % SOURCES) / 250)}.${1 + ((n % SOURCES) % 250)}`;
const pushToken = (n) => n.toString(16).padStart(64, 'c');

function load(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** A Published pass (logo, icon, strip) and the authenticationToken in its package. */
async function publishPass(service, name) {
  const auth = { 'api-key': service.apiKey };
  const uploadInfoList = await lib.uploadPassImages(service.base, auth);
  const pass = await lib.json(`${service.base}/v1/wallet-pass`, {
    method: 'POST',
    headers: auth,
    body: {
      passName: name,
      status: 'Published',
      passMetadata: { description: 'Launch card', organizationName: 'Brand Ltd' },
      uploadInfoList,
    },
  });
  const response = await fetch(`${service.base}/p/${pass.slug}/pass.pkpass`);
  if (!response.ok) throw new Error(`package download: ${response.status}`);
  const zip = Buffer.from(await response.arrayBuffer()).toString('latin1');
  const token = /"authenticationToken":"([^"]+)"/.exec(zip)?.[1];
  if (token === undefined) throw new Error('No authenticationToken in the package');
  return { id: pass.id, token };
}

async function counters(service, passId) {
  const pass = await lib.json(`${service.base}/v1/wallet-pass/${passId}`, {
    headers: { 'api-key': service.apiKey },
  });
  return { issued: pass.appleIssuedCount, active: pass.appleActiveCount };
}

let deviceSeed = 0;

/** `amount` new devices registering `pass`, each from its source address. */
async function register(base, pass, amount, pid) {
  let n = 0;
  const cpuBefore = lib.cpuMsOf(pid);
  const result = await load({
    url: base,
    connections: Math.min(CONNECTIONS, amount),
    amount,
    timeout: 30,
    headers: {
      authorization: `ApplePass ${pass.token}`,
      'content-type': 'application/json',
    },
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const device = ++deviceSeed;
          return {
            ...request,
            path: `/passkit/v1/devices/bench-${device}/registrations/${PASS_TYPE_ID}/${pass.id}`,
            headers: { ...request.headers, 'x-forwarded-for': sourceAddress(n++) },
            body: JSON.stringify({ pushToken: pushToken(device) }),
          };
        },
      },
    ],
  });
  const cpuMs = lib.cpuMsOf(pid) - cpuBefore;
  return {
    perSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    created: result.statusCodeStats['201']?.count ?? 0,
    other: result.non2xx + result.errors + result.timeouts,
    statuses: Object.keys(result.statusCodeStats).join(' '),
    cpuUs: (1000 * cpuMs) / Math.max(1, result['2xx']),
  };
}

/** Fetches of the pass for `duration` s: every other one with If-Modified-Since (a 304). */
async function fetches(base, pass, lastModified, duration) {
  const path = `/passkit/v1/passes/${PASS_TYPE_ID}/${pass.id}`;
  let n = 0;
  const from = (request) => ({
    ...request,
    headers: { ...request.headers, 'x-forwarded-for': sourceAddress(n++) },
  });
  const result = await load({
    url: base,
    connections: FETCH_CONNECTIONS,
    duration,
    headers: { authorization: `ApplePass ${pass.token}` },
    requests: [
      { method: 'GET', path, setupRequest: from },
      {
        method: 'GET',
        path,
        headers: { 'if-modified-since': lastModified },
        setupRequest: from,
      },
    ],
  });
  const ok = result.statusCodeStats['200']?.count ?? 0;
  const notModified = result.statusCodeStats['304']?.count ?? 0;
  return {
    perSecond: (ok + notModified) / result.duration,
    ok,
    notModified,
    other: result['1xx'] + result['4xx'] + result['5xx'] + result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/** The bare baseline on `database`, its own Published pass made, warmed up as the service is. */
async function startBaseline(registrar, database) {
  const pass = await publishPass(registrar, 'Baseline');
  const port = PORT + 3;
  const proc = await lib.startProcess(
    'baseline',
    [join(__dirname, 'baseline-registrations-server.js')],
    {
      PATH: process.env.PATH,
      // The service's level in this bench (lib.serviceEnv): no access-log line at info.
      LOG_LEVEL: 'warn',
      DB_URL: database,
      BASELINE_PORT: String(port),
      BASELINE_PASS_ID: pass.id,
    },
    `http://127.0.0.1:${port}/health`,
  );
  const base = `http://127.0.0.1:${port}`;
  await register(base, pass, WARMUP, proc.child.pid);
  return { base, pass, proc, pid: proc.child.pid };
}

async function stop(proc) {
  if (proc.child.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  await exited;
}

async function benchDatabase(dialect, rows) {
  const env = {
    TRUST_PROXY_HOPS: '1',
    PASSKIT_FETCH_CONFIRMATIONS: 'true',
  };
  const registrar = await lib.startService(`reg_${dialect}`, PORT, env, SERVICE_NODE_ARGS, {
    dialect,
  });
  const database = dialect === 'sqlite' ? registrar.db : registrar.db.url;

  const warmupPass = await publishPass(registrar, 'Warm-up');
  await register(registrar.base, warmupPass, WARMUP, registrar.proc.child.pid);
  const pass = await publishPass(registrar, 'Launch');
  // The bare baseline (MariaDB only: it is mysql2), on a pass of its own so that the service's
  // per-source counts see none of its rows; warmed up like the service, then run before and
  // after it so that a load drifting through the run weighs on both.
  const baseline = dialect === 'mysql' ? await startBaseline(registrar, database) : null;
  const before =
    baseline === null
      ? null
      : await register(baseline.base, baseline.pass, REGISTRATIONS, baseline.pid);
  const registered = await register(registrar.base, pass, REGISTRATIONS, registrar.proc.child.pid);
  const after = await counters(registrar, pass.id);
  const afterwards =
    baseline === null
      ? null
      : await register(baseline.base, baseline.pass, REGISTRATIONS, baseline.pid);
  rows.push({
    database: dialect,
    case: `${REGISTRATIONS.toLocaleString('en')} registrations, ${CONNECTIONS} conn., ${SOURCES} sources`,
    'per s': Math.round(registered.perSecond),
    'p50 ms': registered.p50,
    'p99 ms': registered.p99,
    'not 201': REGISTRATIONS - registered.created,
    check: `issued ${after.issued}, active ${after.active}`,
    'CPU µs': Math.round(registered.cpuUs),
  });
  for (const [when, run] of [
    ['before', before],
    ['after', afterwards],
  ]) {
    if (run === null) continue;
    rows.push({
      database: dialect,
      case: `baseline (Express + mysql2, one INSERT), ${when} the service`,
      'per s': Math.round(run.perSecond),
      'p50 ms': run.p50,
      'p99 ms': run.p99,
      'not 201': REGISTRATIONS - run.created,
      check: '',
      'CPU µs': Math.round(run.cpuUs),
    });
  }
  const baselineRate =
    before === null || afterwards === null ? null : (before.perSecond + afterwards.perSecond) / 2;
  const baselineCpu =
    before === null || afterwards === null ? null : (before.cpuUs + afterwards.cpuUs) / 2;
  if (baseline !== null) await stop(baseline.proc);
  const problems = [];
  for (const run of [before, afterwards]) {
    if (run !== null && run.created !== REGISTRATIONS) {
      problems.push(
        `${dialect}: baseline ${run.created} of ${REGISTRATIONS} 201 (${run.statuses})`,
      );
    }
  }
  if (registered.created !== REGISTRATIONS) {
    problems.push(
      `${dialect}: ${registered.created} of ${REGISTRATIONS} registrations 201 (statuses ${registered.statuses})`,
    );
  }
  if (after.issued !== REGISTRATIONS || after.active !== REGISTRATIONS) {
    problems.push(`${dialect}: counters ${JSON.stringify(after)}, expected ${REGISTRATIONS} each`);
  }

  await stop(registrar.proc);

  // Two fresh processes with the same history (start, then the same warm-up), so that what
  // the registrations left in one (heap, inline caches) weighs on neither.
  const on = await lib.startServiceProcess(database, PORT + 1, env, SERVICE_NODE_ARGS);
  const off = await lib.startServiceProcess(
    database,
    PORT + 2,
    { ...env, PASSKIT_FETCH_CONFIRMATIONS: 'false' },
    SERVICE_NODE_ARGS,
  );
  const current = await fetch(`${on.base}/passkit/v1/passes/${PASS_TYPE_ID}/${pass.id}`, {
    headers: { authorization: `ApplePass ${pass.token}` },
  });
  if (current.status !== 200) throw new Error(`fetch: ${current.status}`);
  const lastModified = current.headers.get('last-modified');
  await current.arrayBuffer();
  const services = { on, off };
  for (const service of Object.values(services)) {
    await fetches(service.base, pass, lastModified, FETCH_WARMUP);
  }

  const rates = { on: [], off: [] };
  const cpu = { on: [], off: [] };
  for (let round = 1; round <= FETCH_ROUNDS; round++) {
    for (const mode of round % 2 === 1 ? ['on', 'off'] : ['off', 'on']) {
      const { base, proc } = services[mode];
      const cpuBefore = lib.cpuMsOf(proc.child.pid);
      const run = await fetches(base, pass, lastModified, FETCH_DURATION);
      // The time after the run counts too: buffered confirmations are written then.
      await lib.sleep(FETCH_TAIL_MS);
      const cpuUs = (1000 * (lib.cpuMsOf(proc.child.pid) - cpuBefore)) / (run.ok + run.notModified);
      rates[mode].push(run.perSecond);
      cpu[mode].push(cpuUs);
      rows.push({
        database: dialect,
        case: `fetches, confirmations ${mode}, round ${round}`,
        'per s': Math.round(run.perSecond),
        'p50 ms': run.p50,
        'p99 ms': run.p99,
        'not 201': '',
        check: `200 × ${run.ok}, 304 × ${run.notModified}, other ${run.other}`,
        'CPU µs': Math.round(cpuUs),
      });
      if (run.other !== 0 || run.ok === 0 || run.notModified === 0) {
        problems.push(`${dialect}: fetches (${mode}, round ${round}): ${JSON.stringify(run)}`);
      }
    }
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const ratio = mean(rates.on) / mean(rates.off);
  const cpuRatio = mean(cpu.on) / mean(cpu.off);
  await stop(off.proc);
  await stop(on.proc);
  return {
    dialect,
    registrationsPerSecond: registered.perSecond,
    registrationCpu: registered.cpuUs,
    baselineRate,
    baselineCpu,
    fetchOn: mean(rates.on),
    fetchOff: mean(rates.off),
    ratio,
    roundRatios: rates.on.map((rate, i) => rate / rates.off[i]),
    medianRatio: lib.percentile(
      rates.on.map((rate, i) => rate / rates.off[i]).sort((a, b) => a - b),
      50,
    ),
    cpuOn: mean(cpu.on),
    cpuOff: mean(cpu.off),
    cpuRatio,
    problems,
  };
}

async function main() {
  if (REGISTRATIONS / SOURCES > DEVICES_PER_SOURCE) {
    throw new Error(
      `BENCH_REGISTRATIONS / BENCH_SOURCES must stay within ${DEVICES_PER_SOURCE} ` +
        '(PASSKIT_DEVICES_PER_SOURCE): a source keeps no more of one shared pass',
    );
  }
  lib.printMachine();
  const rows = [];
  const summaries = [];
  for (const dialect of DATABASES) summaries.push(await benchDatabase(dialect, rows));
  console.table(rows);
  const percent = (ratio) => `${(100 * ratio).toFixed(0)} %`;
  for (const s of summaries) {
    if (s.baselineRate !== null) {
      console.log(
        `${s.dialect}: registrations ${Math.round(s.registrationsPerSecond)}/s, bare baseline ` +
          `${Math.round(s.baselineRate)}/s (mean of before and after): ` +
          `${percent(s.registrationsPerSecond / s.baselineRate)} (target ≥ 90 %); CPU per ` +
          `registration ${Math.round(s.registrationCpu)} µs, baseline ${Math.round(s.baselineCpu)} µs`,
      );
    }
    console.log(
      `${s.dialect}: ${Math.round(s.registrationsPerSecond)} registrations/s of one pass; ` +
        `fetches ${Math.round(s.fetchOn)}/s with confirmations, ${Math.round(s.fetchOff)}/s ` +
        `without: ${percent(s.ratio)}, median of rounds ${percent(s.medianRatio)} ` +
        `(rounds ${s.roundRatios.map(percent).join(', ')}); CPU per fetch ` +
        `${Math.round(s.cpuOn)} µs with, ${Math.round(s.cpuOff)} µs without (${percent(s.cpuRatio)})`,
    );
  }
  const problems = summaries.flatMap((s) => s.problems);
  if (problems.length > 0) throw new Error(`Failed checks:\n${problems.join('\n')}`);
}

lib.run(main, 15 * 60_000);
