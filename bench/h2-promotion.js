'use strict';
/**
 * bench:h2-promotion — how much of a bare `node:http2` client's per-request garbage V8 moves to
 * the old generation, at several numbers of streams in flight. No service code is involved: a
 * cleartext HTTP/2 server (own process) answers every POST with 200, and a client process
 * (own process, run with V8's `--trace-gc-nvp`) sends BENCH_H2_REQUESTS requests with a
 * `{}` body, keeping N in flight, the way the APNs client and apns-bare-client.ts do. The
 * script sums the `promoted=` bytes of every collection the client logs.
 *
 * A control run allocates about as much short-lived garbage per "request" without HTTP/2, so
 * the figure shows what is particular to the streams: objects that die young are not promoted.
 * A second one gives each set of garbage to `AsyncResource.bind`, as node:http2's `request()`
 * does with a function holding the new stream: on Node 20 `bind` wraps two accessors with
 * `deprecate()`, which sets a fresh function as their prototype, and V8's young-generation
 * collector keeps such prototype users (and what they hold) until a full collection.
 *
 * Last, rows with the service's fix and 100 streams in flight where the client also makes
 * short-lived garbage of its own per request, as a process doing more than pushing does (the
 * worker reads and writes its database): with enough of it, node:http2's streams reach the
 * old generation again, however briefly each one lives. The same rows follow with the session's
 * streams in the APNs client's StreamTable instead of node:http2's own Map, which is what keeps
 * them: the Map's discarded tables in the old generation point at them.
 *
 *   BENCH_H2_REQUESTS (default 50000)  BENCH_H2_IN_FLIGHT (default 1,5,50,500)
 *   BENCH_H2_GARBAGE_KB (default 0,2,5,20: about that many KB of garbage per request, for the
 *   last rows)  BENCH_H2_NODE_ARGS (extra node options for the client, e.g.
 *   `--max-semi-space-size=2` to see whether the young generation's size matters)
 *
 * Findings: BENCHMARKS.md, "bench:h2-promotion"; docs/decisions.md, APNs.
 */
const { AsyncResource } = require('node:async_hooks');
const { fork, spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const http2 = require('node:http2');
const { join } = require('node:path');

/** The service's fix (libs/core/src/ops/lean-async-resource-bind.ts), from the build. */
const LEAN_BIND = join(__dirname, '../dist/libs/core/src/ops/lean-async-resource-bind.js');
/** The APNs client's table of a session's streams (libs/wallet-a/src/apns/stream-table.ts). */
const STREAM_TABLE = join(__dirname, '../dist/libs/wallet-a/src/apns/stream-table.js');
const REQUESTS = Number(process.env.BENCH_H2_REQUESTS ?? 50_000);
const IN_FLIGHT = (process.env.BENCH_H2_IN_FLIGHT ?? '1,5,50,500').split(',').map(Number);
const GARBAGE_KB = (process.env.BENCH_H2_GARBAGE_KB ?? '0,2,5,20').split(',').map(Number);
const CLIENT_NODE_ARGS = (process.env.BENCH_H2_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Streams in flight for the rows with garbage: about what the worker keeps. */
const GARBAGE_IN_FLIGHT = 100;

/**
 * About `kb` KB of objects that are dropped at once: 16 objects of 56 bytes each (three fields
 * and the header, 64-bit, no pointer compression) and their 8-byte slots in an array, per KB.
 */
function makeGarbage(kb) {
  const objects = new Array(kb * 16);
  for (let i = 0; i < objects.length; i++) objects[i] = { at: i, of: objects, next: null };
  return objects.length;
}

function serve() {
  const server = http2.createServer({ settings: { maxConcurrentStreams: 1000 } });
  server.on('stream', (stream) => {
    stream.resume();
    stream.on('end', () => stream.respond({ ':status': 200 }, { endStream: true }));
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
}

/**
 * The client: `inFlight` streams at a time until `requests` are answered (or the control), and
 * `garbageKb` KB of other short-lived garbage made per request.
 */
function client(port, requests, inFlight, garbageKb = 0) {
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  const finish = (label, startedAt) => {
    clearInterval(sampler);
    const seconds = (Date.now() - startedAt) / 1000;
    process.stdout.write(
      `RESULT ${JSON.stringify({ label, seconds, startRss, peakRss: Math.max(peakRss, process.memoryUsage.rss()) })}\n`,
    );
  };
  if (port <= 0) {
    // No HTTP/2: about 4 KB of objects per "request", each set dropped by the next macrotask;
    // with port -1 each set is also what a function given to `AsyncResource.bind` holds, as
    // `request()` binds a function holding the stream.
    const bind = port === -1;
    let left = requests;
    const startedAt = Date.now();
    const step = () => {
      for (let i = 0; i < inFlight && left > 0; i++, left--) {
        const garbage = { headers: { ':path': `/3/device/${left}` }, parts: new Array(60) };
        for (let j = 0; j < garbage.parts.length; j++) garbage.parts[j] = { at: j, of: garbage };
        if (bind) new AsyncResource('Bench').bind(() => garbage.parts.length);
      }
      if (left > 0) setImmediate(step);
      else
        finish(
          bind
            ? 'the same, each set held by a function given to AsyncResource.bind'
            : 'control: no HTTP/2, as much short-lived garbage',
          startedAt,
        );
    };
    step();
    return;
  }
  const session = http2.connect(`http://127.0.0.1:${port}`);
  if (WITH_TABLE && !require(STREAM_TABLE).adoptStreamTable(session)) {
    throw new Error('This Node has no stream map where the StreamTable expects it');
  }
  session.once('remoteSettings', () => {
    const body = Buffer.from('{}');
    const startedAt = Date.now();
    let sent = 0;
    let open = 0;
    const start = () => {
      sent++;
      open++;
      if (garbageKb > 0) makeGarbage(garbageKb);
      const stream = session.request({
        ':method': 'POST',
        ':path': `/3/device/${sent.toString(16).padStart(64, '0')}`,
        'content-type': 'application/json',
        'content-length': body.length,
      });
      stream.resume();
      stream.on('close', () => {
        open--;
        if (sent < requests) start();
        else if (open === 0) {
          const garbage = garbageKb > 0 ? `, ${garbageKb} KB of other garbage per request` : '';
          finish(
            `${inFlight} in flight${LEAN ? ', lean AsyncResource.bind' : ''}${WITH_TABLE ? ', StreamTable' : ''}${garbage}`,
            startedAt,
          );
          session.close();
        }
      });
      stream.end(body);
    };
    while (open < inFlight && sent < requests) start();
  });
}

/** Runs one client process and sums what its collections found allocated and promoted. */
function measure(port, inFlight, lean = false, garbageKb = 0, table = false) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--trace-gc-nvp',
        ...CLIENT_NODE_ARGS,
        __filename,
        table ? 'table-client' : lean ? 'lean-client' : 'client',
        String(port),
        String(REQUESTS),
        String(inFlight),
        String(garbageKb),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.split('\n').find((text) => text.startsWith('RESULT '));
      if (code !== 0 || line === undefined) {
        reject(new Error(`client exited ${code}: ${output.slice(-500)}`));
        return;
      }
      const result = JSON.parse(line.slice('RESULT '.length));
      let allocated = 0;
      let promoted = 0;
      let scavenges = 0;
      let markCompacts = 0;
      for (const gc of output.matchAll(/ gc=(\w+) .*? allocated=(\d+) promoted=(\d+)/g)) {
        allocated += Number(gc[2]);
        promoted += Number(gc[3]);
        if (gc[1] === 's') scavenges++;
        else markCompacts++;
      }
      resolve({ ...result, allocated, promoted, scavenges, markCompacts });
    });
  });
}

async function main() {
  const server = fork(__filename, ['server'], { stdio: 'inherit' });
  const port = await new Promise((resolve) => server.once('message', resolve));
  try {
    console.log(`node ${process.version}, ${REQUESTS} requests per run`);
    console.log(
      '\n| run | requests/s | allocated per request | promoted per request | scavenges / mark-compacts | RSS start → peak |',
    );
    console.log('|---|---|---|---|---|---|');
    const controls = [
      [0, 50],
      [-1, 50],
    ];
    const runs = [
      ...IN_FLIGHT.map((n) => () => measure(port, n)),
      ...controls.map(
        ([target, n]) =>
          () =>
            measure(target, n),
      ),
    ];
    if (existsSync(LEAN_BIND)) {
      runs.push(...IN_FLIGHT.map((n) => () => measure(port, n, true)));
      runs.push(...GARBAGE_KB.map((kb) => () => measure(port, GARBAGE_IN_FLIGHT, true, kb)));
      if (existsSync(STREAM_TABLE)) {
        runs.push(
          ...GARBAGE_KB.map((kb) => () => measure(port, GARBAGE_IN_FLIGHT, true, kb, true)),
          () => measure(port, 500, true, 0, true),
        );
      }
    } else
      console.log(`(no ${LEAN_BIND}: run \`npm run build\` for the rows with the service's fix)`);
    for (const run of runs) {
      const result = await run();
      const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
      const kbPerRequest = (bytes) => `${(bytes / REQUESTS / 1000).toFixed(2)} KB`;
      console.log(
        `| ${result.label} | ${(REQUESTS / result.seconds).toFixed(0)} | ${kbPerRequest(result.allocated)} | ${kbPerRequest(result.promoted)} | ${result.scavenges} / ${result.markCompacts} | ${mb(result.startRss)} → ${mb(result.peakRss)} |`,
      );
    }
  } finally {
    server.kill();
  }
}

const [role, ...args] = process.argv.slice(2);
const WITH_TABLE = role === 'table-client';
const LEAN = role === 'lean-client' || WITH_TABLE;
if (role === 'server') serve();
else if (role === 'client') client(...args.map(Number));
else if (LEAN) {
  require(LEAN_BIND).installLeanAsyncResourceBind();
  client(...args.map(Number));
} else
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
