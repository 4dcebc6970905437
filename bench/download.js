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
 * The pass is a store card's typical set, each image at Apple's @3x size as uploaded (icon
 * 114×114, logo 480×150, strip 1125×369) of random pixels, so nothing compresses away (the
 * worst case); BENCH_IMAGES=examples uploads the walk-through's examples/images instead.
 * BENCH_SCALES=explicit uploads each one's @1x and @2x too, under their scale names. Before
 * measuring downloads, BENCH_BUILDS more passes of the same uploads are downloaded twice each:
 * a new pass's first download builds its package (its image uploads already known, as for any
 * pass after a brand's first), the second is served from the cache; the difference of their
 * times to the response's headers is the build.
 *
 *   BENCH_DURATION (s, default 10)  BENCH_CONNECTIONS (default 10)  BENCH_ROUNDS (default 2)
 *   BENCH_SOURCES (default 100)  BENCH_BUILDS (default 20)  BENCH_IMAGES (noise | examples)
 *   BENCH_SCALES (made | explicit)
 */
const autocannon = require('autocannon');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const sharp = require('sharp');
const lib = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SOURCES = Number(process.env.BENCH_SOURCES ?? 100);
const BUILDS = Number(process.env.BENCH_BUILDS ?? 20);
const IMAGES = process.env.BENCH_IMAGES ?? 'noise';
const SCALES = process.env.BENCH_SCALES ?? 'made';
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
  const images =
    IMAGES === 'examples'
      ? Object.fromEntries(
          ['logo.png', 'icon.png', 'strip.png'].map((name) => [
            name,
            readFileSync(join(lib.ROOT, 'examples', 'images', name)),
          ]),
        )
      : {
          'logo.png': lib.png(480, 150, { random: true }),
          'icon.png': lib.png(114, 114, { random: true }),
          'strip.png': lib.png(1125, 369, { random: true }),
        };
  if (SCALES === 'explicit') {
    // As the service makes them (image-scales.ts), each named for its scale: the same package
    // bytes with nothing to resize, to set the build beside one that reuses its resizes.
    for (const [fileName, bytes] of Object.entries(images)) {
      const role = fileName.replace('.png', '');
      const { width, height } = await sharp(bytes).metadata();
      const at = (scale) =>
        sharp(bytes)
          .resize(
            Math.max(1, Math.round((width * scale) / 3)),
            Math.max(1, Math.round((height * scale) / 3)),
            { fit: 'fill' },
          )
          .toColourspace('srgb')
          .png({ compressionLevel: 9, adaptiveFiltering: true })
          .toBuffer();
      images[`${role}.png`] = await at(1);
      images[`${role}@2x.png`] = await at(2);
      images[`${role}@3x.png`] = bytes;
    }
  }
  const uploadInfoList = [];
  for (const [fileName, bytes] of Object.entries(images)) {
    uploadInfoList.push({
      fileName,
      uploadKey: await upload(service.base, service.token, fileName, bytes),
    });
  }
  const createPass = (n) =>
    lib.json(`${service.base}/v1/wallet-pass`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token}` },
      body: {
        passName: `Download bench ${n}`,
        status: 'Published',
        passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
        uploadInfoList,
      },
    });
  /**
   * One download of a pass's package, timed to its headers (the service sends them once the
   * package is built) and to its last byte.
   */
  const download = async (slug) => {
    const url = `${service.base}/p/${slug}/pass.pkpass`;
    const since = (started) => Number(process.hrtime.bigint() - started) / 1e6;
    const started = process.hrtime.bigint();
    const response = await fetch(url);
    const headersMs = since(started);
    const bytes = (await response.arrayBuffer()).byteLength;
    const ms = since(started);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return { url, bytes, headersMs, ms, contentType: response.headers.get('content-type') };
  };
  const pass = await createPass(0);
  const first = await download(pass.slug);
  const pkpassUrl = first.url;
  const size = first.bytes;
  console.log(`package: ${size} bytes (${first.contentType})`);
  console.log(`first build of these uploads: ${first.ms.toFixed(1)} ms`);
  // A new pass's first download builds its package before its headers; its second finds it
  // cached. The difference of their times to headers is the build alone, without the transfer.
  const firsts = [];
  const builds = [];
  for (let n = 1; n <= BUILDS; n++) {
    const { slug } = await createPass(n);
    const built = await download(slug);
    const cached = await download(slug);
    firsts.push(built.ms);
    builds.push(built.headersMs - cached.headersMs);
  }
  const median = (values) => {
    const sorted = values.toSorted((a, b) => a - b);
    return lib.percentile(sorted, 50).toFixed(1);
  };
  console.log(
    `package build (${BUILDS} new passes of these uploads): median ${median(builds)} ms; their first download, build and transfer, median ${median(firsts)} ms`,
  );

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
