'use strict';
/**
 * bench:api — throughput of `GET /v1/wallet-pass?limit=20` and `POST /v1/wallet-pass` with an
 * API key, the built service (MariaDB) vs bench/baseline-api-server.js on the same bench
 * database (same rows), alternating in one run. Ratio = service req/s ÷ baseline req/s.
 * Both log at info: each writes its one access-log line per request to the pipe this script
 * reads, as a service under a log collector does.
 *
 *   BENCH_DURATION (s, default 10)  BENCH_CONNECTIONS (default 10)  BENCH_ROUNDS (default 2)
 *   BENCH_METHODS (default GET,POST)  BENCH_SERVICE_NODE_ARGS (extra node options for the
 *   service, space-separated, e.g. --cpu-prof --cpu-prof-dir=/tmp/api-profile)
 *   BENCH_BASELINE_NODE_ARGS (the same for the baseline, to profile both sides alike)
 *
 * With --cpu-prof, each round prints its window and request count in the form
 * bench/cpuprofile-summary.js takes, to read the profile as µs per request of that round.
 */
const autocannon = require('autocannon');
const { join } = require('node:path');
const lib = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const METHODS = (process.env.BENCH_METHODS ?? 'GET,POST').split(',');
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const BASELINE_NODE_ARGS = (process.env.BENCH_BASELINE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const SERVICE_PORT = 3100;
const BASELINE_PORT = 3101;
const SEED_PASSES = 100;

function load(url, apiKey, method) {
  let counter = 0;
  const tag = Math.random().toString(36).slice(2, 8);
  const options = {
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    method,
  };
  if (method === 'POST') {
    options.requests = [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            passName: `Load ${tag} ${counter++}`,
            passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
          }),
        }),
      },
    ];
  }
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Now on the monotonic clock in µs, the clock of V8's CPU profiles (cpuprofile-summary.js). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Runs a load while reading the CPU time the server under it used: µs per 2xx request. */
async function measured(pid, url, apiKey, method) {
  const before = lib.cpuMsOf(pid);
  const from = monotonicUs();
  const result = await load(url, apiKey, method);
  const to = monotonicUs();
  const cpuMs = lib.cpuMsOf(pid) - before;
  const requests = result['2xx'] + result.non2xx;
  return {
    ...summary(result),
    cpuUs: (1000 * cpuMs) / Math.max(1, result['2xx']),
    window: `--window ${from}:${to} --requests ${requests}`,
  };
}

function summary(result) {
  const ok = result['2xx'];
  return {
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

async function seed(base, apiKey) {
  for (let i = 0; i < SEED_PASSES; i++) {
    await lib.json(`${base}/v1/wallet-pass`, {
      method: 'POST',
      headers: { 'api-key': apiKey },
      body: {
        passName: `Seed ${i}`,
        passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
      },
    });
  }
}

async function main() {
  lib.printMachine();
  const service = await lib.startService(
    'api',
    SERVICE_PORT,
    { LOG_LEVEL: 'info' },
    SERVICE_NODE_ARGS,
  );
  await seed(service.base, service.apiKey);
  const baselineDb = service.db.url;
  const baseline = await lib.startProcess(
    'baseline',
    [...BASELINE_NODE_ARGS, join(__dirname, 'baseline-api-server.js')],
    {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      DB_URL: baselineDb,
      BASELINE_PORT: String(BASELINE_PORT),
      PUBLIC_BASE_URL: service.base,
    },
    `http://127.0.0.1:${BASELINE_PORT}/health`,
  );
  const baselineBase = `http://127.0.0.1:${BASELINE_PORT}`;

  // The two must answer the same JSON for the same page.
  const fromService = await lib.json(`${service.base}/v1/wallet-pass?limit=20`, {
    headers: { 'api-key': service.apiKey },
  });
  const fromBaseline = await lib.json(`${baselineBase}/v1/wallet-pass?limit=20`, {
    headers: { 'api-key': service.apiKey },
  });
  if (JSON.stringify(fromService) !== JSON.stringify(fromBaseline)) {
    throw new Error(
      `baseline JSON differs:\n${JSON.stringify(fromService.items[0])}\n${JSON.stringify(fromBaseline.items[0])}`,
    );
  }
  console.log(`same JSON for GET ?limit=20 (${fromService.items.length} items): yes`);

  const results = { GET: { service: [], baseline: [] }, POST: { service: [], baseline: [] } };
  for (const method of METHODS) {
    const path = method === 'GET' ? '/v1/wallet-pass?limit=20' : '/v1/wallet-pass';
    // Warm both up (JIT, pools) before measuring.
    await load(`${service.base}${path}`, service.apiKey, method).catch(() => undefined);
    await load(`${baselineBase}${path}`, service.apiKey, method).catch(() => undefined);
    for (let round = 0; round < ROUNDS; round++) {
      const servicePid = service.proc.child.pid;
      const s = await measured(servicePid, `${service.base}${path}`, service.apiKey, method);
      const b = await measured(
        baseline.child.pid,
        `${baselineBase}${path}`,
        service.apiKey,
        method,
      );
      if (SERVICE_NODE_ARGS.includes('--cpu-prof')) {
        console.log(`${method} round ${round + 1}: service profile ${s.window}`);
      }
      if (BASELINE_NODE_ARGS.includes('--cpu-prof')) {
        console.log(`${method} round ${round + 1}: baseline profile ${b.window}`);
      }
      results[method].service.push(s);
      results[method].baseline.push(b);
      console.log(
        `${method} round ${round + 1}: service ${s.rps.toFixed(0)} req/s p50 ${s.p50} ms p99 ${s.p99} ms, ${s.cpuUs.toFixed(0)} µs CPU per request (errors ${s.errors}) | baseline ${b.rps.toFixed(0)} req/s p50 ${b.p50} ms p99 ${b.p99} ms, ${b.cpuUs.toFixed(0)} µs (errors ${b.errors}) | ratio ${((100 * s.rps) / b.rps).toFixed(0)}%`,
      );
    }
  }

  // The targets: req/s at least 80 % of the baseline's, CPU per request at most 1.25×.
  const RATE_TARGET = 0.8;
  const CPU_TARGET = 1.25;
  console.log(
    `\n| request | service req/s | p50 / p99 ms | CPU per request | baseline req/s | p50 / p99 ms | CPU per request | ratio (target ≥ ${100 * RATE_TARGET}%) | CPU ratio (target ≤ ${CPU_TARGET}×) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const method of METHODS) {
    const avg = (list, key) => list.reduce((sum, item) => sum + item[key], 0) / list.length;
    const s = results[method].service;
    const b = results[method].baseline;
    const ratio = avg(s, 'rps') / avg(b, 'rps');
    const cpuRatio = avg(s, 'cpuUs') / avg(b, 'cpuUs');
    const verdict = (met) => (met ? 'met' : 'MISSED');
    console.log(
      `| ${method} /v1/wallet-pass${method === 'GET' ? '?limit=20' : ''} | ${avg(s, 'rps').toFixed(0)} | ${avg(s, 'p50').toFixed(0)} / ${avg(s, 'p99').toFixed(0)} | ${avg(s, 'cpuUs').toFixed(0)} µs | ${avg(b, 'rps').toFixed(0)} | ${avg(b, 'p50').toFixed(0)} / ${avg(b, 'p99').toFixed(0)} | ${avg(b, 'cpuUs').toFixed(0)} µs | ${(100 * ratio).toFixed(0)}% ${verdict(ratio >= RATE_TARGET)} | ${cpuRatio.toFixed(2)}× ${verdict(cpuRatio <= CPU_TARGET)} |`,
    );
  }
}

lib.run(main, 15 * 60_000);
