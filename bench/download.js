'use strict';
/**
 * bench:download — `GET /p/{slug}/pass.pkpass` of a Published pass whose package is already
 * cached vs a tiny Express static server (bench/, another port, nothing added to the product)
 * (bench/static-server.js, its own process) sending a file of exactly the package's size. Same client (autocannon), same connections,
 * alternating in one run. Ratio = service req/s ÷ static req/s.
 *
 * The phones come from BENCH_SOURCES client addresses in X-Forwarded-For (TRUST_PROXY_HOPS=1), as
 * a crowd opening a campaign's link does: one address would soon meet the holder pages' own
 * budget per IP (10,000 a minute), and its quick 429s would count as downloads. A run with any
 * answer other than 200 is refused.
 *
 *   BENCH_DURATION (s, default 10)  BENCH_CONNECTIONS (default 10)  BENCH_ROUNDS (default 2)
 *   BENCH_SOURCES (default 100)
 */
const autocannon = require('autocannon');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const lib = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SOURCES = Number(process.env.BENCH_SOURCES ?? 100);
const PORT = 3103;
const STATIC_PORT = 3104;

async function upload(base, token, fileName, bytes) {
  const form = new FormData();
  form.append('bucket', 'pass-assets');
  form.append('file', new Blob([bytes], { type: 'image/png' }), fileName);
  const response = await fetch(`${base}/v1/uploads/storage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = await response.json();
  if (!response.ok)
    throw new Error(`upload ${fileName}: ${response.status} ${JSON.stringify(body)}`);
  return body.uploadKey;
}

const sourceAddress = (n) =>
  `198.18.${Math.floor((n % SOURCES) / 250)}.${1 + ((n % SOURCES) % 250)}`;

function load(url) {
  let n = 0;
  const requests = [
    {
      setupRequest: (request) => ({
        ...request,
        headers: { ...request.headers, 'x-forwarded-for': sourceAddress(n++) },
      }),
    },
  ];
  return new Promise((resolve, reject) =>
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx + result.errors > 0) {
        return reject(new Error(`${url}: ${result.non2xx + result.errors} answers were not 200`));
      }
      resolve(result);
    }),
  );
}

async function main() {
  lib.printMachine();
  const service = await lib.startService('download', PORT, { TRUST_PROXY_HOPS: '1' });
  const images = {
    'logo.png': lib.png(160, 50, { random: true }),
    'icon.png': lib.png(29, 29, { random: true }),
    'strip.png': lib.png(375, 123, { random: true }),
  };
  const uploadInfoList = [];
  for (const [fileName, bytes] of Object.entries(images)) {
    uploadInfoList.push({
      fileName,
      uploadKey: await upload(service.base, service.token, fileName, bytes),
    });
  }
  const pass = await lib.json(`${service.base}/v1/wallet-pass`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}` },
    body: {
      passName: 'Download bench',
      status: 'Published',
      passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
      uploadInfoList,
    },
  });
  const pkpassUrl = `${service.base}/p/${pass.slug}/pass.pkpass`;
  const first = await fetch(pkpassUrl);
  if (!first.ok) throw new Error(`${pkpassUrl}: ${first.status}`);
  const size = (await first.arrayBuffer()).byteLength;
  console.log(`package: ${size} bytes (${first.headers.get('content-type')})`);

  const dir = mkdtempSync(join(tmpdir(), 'wps-bench-static-'));
  lib.onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'pass.pkpass'), randomBytes(size));
  await lib.startProcess(
    'static server',
    [join(__dirname, 'static-server.js')],
    { PATH: process.env.PATH, STATIC_DIR: dir, STATIC_PORT: String(STATIC_PORT) },
    `http://127.0.0.1:${STATIC_PORT}/health`,
  );
  const staticUrl = `http://127.0.0.1:${STATIC_PORT}/pass.pkpass`;
  const check = await fetch(staticUrl);
  if ((await check.arrayBuffer()).byteLength !== size) throw new Error('static file size differs');

  await load(pkpassUrl);
  await load(staticUrl);
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    const s = await load(pkpassUrl);
    const b = await load(staticUrl);
    rows.push({ s, b });
    const rps = (r) => r['2xx'] / r.duration;
    console.log(
      `round ${round + 1}: pkpass ${rps(s).toFixed(0)} req/s p50 ${s.latency.p50} p99 ${s.latency.p99} (non-2xx ${s.non2xx + s.errors}) | static ${rps(b).toFixed(0)} req/s p50 ${b.latency.p50} p99 ${b.latency.p99} (non-2xx ${b.non2xx + b.errors}) | ratio ${((100 * rps(s)) / rps(b)).toFixed(0)}%`,
    );
  }
  const avg = (pick) => rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
  const sRps = avg((row) => row.s['2xx'] / row.s.duration);
  const bRps = avg((row) => row.b['2xx'] / row.b.duration);
  console.log(`\n| ${size}-byte download | req/s | p50 / p99 ms |`);
  console.log('|---|---|---|');
  console.log(
    `| GET /p/{slug}/pass.pkpass (cached) | ${sRps.toFixed(0)} | ${avg((r) => r.s.latency.p50).toFixed(0)} / ${avg((r) => r.s.latency.p99).toFixed(0)} |`,
  );
  console.log(
    `| express.static, same size | ${bRps.toFixed(0)} | ${avg((r) => r.b.latency.p50).toFixed(0)} / ${avg((r) => r.b.latency.p99).toFixed(0)} |`,
  );
  const ratio = sRps / bRps;
  console.log(
    `\nratio ${(100 * ratio).toFixed(0)}% (target ≥ 50%: ${ratio >= 0.5 ? 'met' : 'MISSED'})`,
  );
}

lib.run(main, 10 * 60_000);
