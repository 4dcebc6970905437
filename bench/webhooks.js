'use strict';
/**
 * bench:webhooks — target: with a receiver that answers at once, an event reaches it
 * ≤ 2 s after its cause (p99). On the built service and fresh MariaDB databases:
 *
 *   1. cause → receipt latency, one service process with its embedded worker (the default
 *      deployment): BENCH_CAUSES (default 300) holder PATCHes one after another, each timed
 *      from sending the PATCH to the receiver getting its `holder.updated`;
 *   2. the same with the API (WORKER_ENABLED=false) and a separate worker process, kicked
 *      through Redis (REDIS_URL; skipped when Redis does not answer);
 *   3. throughput: BENCH_EVENTS (default 10,000) `holder.created` deliveries queued by one
 *      import while no worker runs, then one worker process started: events per second it
 *      delivers to one fast endpoint (from its start to the last receipt, start-up included).
 *
 * The receiver is a plain node HTTP server on 127.0.0.1 answering 204 at once.
 */
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');
const net = require('node:net');
const lib = require('./lib');

const PORT = Number(process.env.BENCH_PORT ?? 3150);
const CAUSES = Number(process.env.BENCH_CAUSES ?? 300);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WORKER_JS = `${lib.ROOT}/dist/apps/worker/src/main.js`;
const WEBHOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

/** Answers 204 at once; tells `onEvent(body, time)` of each request. */
async function startReceiver(onEvent) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')), performance.now());
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  lib.onCleanup(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${server.address().port}`;
}

function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A worker process on the service's database; killed at clean-up. */
function startWorker(service, env) {
  const child = spawn(process.execPath, [WORKER_JS], {
    env: { ...lib.serviceEnv(service.db.url, 0, env), WORKER_ENABLED: 'true' },
    cwd: lib.ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  lib.onCleanup(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  return child;
}

/** A Published pass with a topField, and a webhook of `events` to `url`. */
async function setUp(service, url, events) {
  const auth = { authorization: `Bearer ${service.token}` };
  const uploadInfoList = await lib.uploadPassImages(service.base, auth);
  const pass = await lib.json(`${service.base}/v1/wallet-pass`, {
    method: 'POST',
    headers: auth,
    body: {
      passName: 'Webhook bench',
      status: 'Published',
      passMetadata: {
        description: 'Loyalty card',
        organizationName: 'Brand Ltd',
        topField: { key: 'points', label: 'Points', value: '0' },
      },
      uploadInfoList,
    },
  });
  await lib.json(`${service.base}/v1/webhooks`, {
    method: 'POST',
    headers: auth,
    body: { url: `${url}/in`, events },
  });
  return { auth, pass };
}

/** Cause → receipt of CAUSES holder PATCHes, one at a time. */
async function latency(label, service, waiting) {
  const { auth, pass } = await setUp(service, waiting.url, ['holder.updated']);
  const holder = await lib.json(`${service.base}/v1/wallet-pass/${pass.id}/holders`, {
    method: 'POST',
    headers: auth,
    body: { externalId: 'bench-1' },
  });
  const samples = [];
  for (let i = 0; i < CAUSES; i += 1) {
    const points = String(i + 1);
    const arrived = new Promise((resolve) => waiting.expect(points, resolve));
    const started = performance.now();
    await lib.json(`${service.base}/v1/wallet-pass/${pass.id}/holders/${holder.id}`, {
      method: 'PATCH',
      headers: auth,
      body: { fieldValues: { points } },
    });
    const at = await Promise.race([arrived, lib.sleep(10_000).then(() => null)]);
    if (at === null) throw new Error(`${label}: event ${points} did not arrive within 10 s`);
    samples.push(at - started);
  }
  samples.sort((a, b) => a - b);
  return {
    case: label,
    events: CAUSES,
    p50: lib.percentile(samples, 50).toFixed(1),
    p99: lib.percentile(samples, 99).toFixed(1),
    max: samples[samples.length - 1].toFixed(1),
  };
}

/** Routes the receiver's events to whoever waits for a `points` value. */
function latencyReceiver() {
  const waiters = new Map();
  return {
    waiters,
    expect: (points, resolve) => waiters.set(points, resolve),
    onEvent: (body, time) => {
      const points = body.data?.fieldValues?.points;
      const resolve = waiters.get(points);
      if (resolve !== undefined) {
        waiters.delete(points);
        resolve(time);
      }
    },
  };
}

async function main() {
  lib.printMachine();
  const results = [];

  // 1. The default deployment: one process, worker embedded.
  {
    const waiting = latencyReceiver();
    waiting.url = await startReceiver(waiting.onEvent);
    const service = await lib.startService('webhooks1', PORT, {
      ...WEBHOOK_ENV,
      WORKER_ENABLED: 'true',
    });
    results.push(await latency('one process (API + embedded worker)', service, waiting));
  }

  // 2. API and a separate worker, kicked through Redis.
  if (await redisAnswers(REDIS_URL)) {
    const waiting = latencyReceiver();
    waiting.url = await startReceiver(waiting.onEvent);
    const env = { ...WEBHOOK_ENV, REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` };
    const service = await lib.startService('webhooks2', PORT + 1, env);
    startWorker(service, env);
    await lib.sleep(3000);
    results.push(await latency('API + separate worker (kick via Redis)', service, waiting));
  } else {
    console.log(`(Redis not reachable at ${REDIS_URL}: case 2 left out)`);
  }
  console.table(results);

  // 3. Throughput of one worker process on a backlog, to one fast endpoint.
  let received = 0;
  let last = 0;
  const url = await startReceiver((_body, time) => {
    received += 1;
    last = time;
  });
  const service = await lib.startService('webhooks3', PORT + 2, WEBHOOK_ENV);
  const { auth, pass } = await setUp(service, url, ['holder.created']);
  const rows = Array.from({ length: EVENTS }, (_, i) => ({
    externalId: `t-${i}`,
    fieldValues: { points: String(i) },
  }));
  const importStarted = performance.now();
  await lib.json(`${service.base}/v1/wallet-pass/${pass.id}/holders/import`, {
    method: 'POST',
    headers: auth,
    body: rows,
  });
  const importMs = performance.now() - importStarted;
  const started = performance.now();
  startWorker(service, WEBHOOK_ENV);
  const deadline = Date.now() + 5 * 60_000;
  while (received < EVENTS) {
    if (Date.now() > deadline) throw new Error(`only ${received} of ${EVENTS} events arrived`);
    await lib.sleep(50);
  }
  const seconds = (last - started) / 1000;
  console.log(
    `import of ${EVENTS.toLocaleString('en')} holders with a subscribed webhook (the API ` +
      `writing one delivery per holder): ${Math.round(importMs)} ms`,
  );
  console.log(
    `one worker process, one endpoint: ${EVENTS.toLocaleString('en')} events in ` +
      `${seconds.toFixed(1)} s = ${Math.round(EVENTS / seconds)} events/s (worker start-up included)`,
  );
}

lib.run(main, 15 * 60_000);
