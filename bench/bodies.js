'use strict';
/**
 * bench:bodies: the CPU one request costs the service, for the largest body each body-taking
 * route accepts and for attack bodies built to cost seconds of CPU. Not a timed test: it
 * records figures (BENCHMARKS.md). CPU is the service process's own, all threads, read from
 * /proc/<pid>/task/<tid>/schedstat (nanoseconds) before and after each request; the script
 * sends one request at a time and waits for the answer. Linux only.
 *
 * Knobs: BENCH_REPEAT (3): rounds of every case; BENCH_PORT (3130).
 */
const { readdirSync, readFileSync } = require('node:fs');
const { gzipSync } = require('node:zlib');
const lib = require('./lib');

const PORT = Number(process.env.BENCH_PORT ?? 3130);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

/** CPU time of every thread of `pid`, in nanoseconds. */
function cpuNs(pid) {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return total;
}

function peakRssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return line === undefined ? NaN : Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

/** JSON as clients that escape every non-ASCII character (Python's default) write it. */
const asciiJson = (value) =>
  JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

const text = (length) => '語'.repeat(length);
const url = (length) => `https://brand.example/${'a'.repeat(length - 22)}`;

/**
 * The largest pass the route accepts: a boarding pass (the most face fields: 3 header, 2 primary,
 * 4 secondary, 5 auxiliary), 20 back fields of 10 links and 16 languages translating every
 * field, every text at its maximum length.
 */
function largestPass(name) {
  const field = (key) => ({ key, label: text(255), value: text(2000), changeMessage: text(255) });
  const face = {
    topField: field('top'),
    headerFields: [1, 2].map((i) => field(`header${i}`)),
    primaryFields: [1, 2].map((i) => field(`primary${i}`)),
    secondaryFields: [1, 2, 3, 4].map((i) => field(`second${i}`)),
    auxiliaryFields: [1, 2, 3, 4, 5].map((i) => field(`aux${i}`)),
  };
  const faceKeys = Object.values(face)
    .flat()
    .map((f) => f.key);
  const backKeys = Array.from({ length: 20 }, (_, i) => `back${i}`);
  return {
    id: 'x'.repeat(36),
    createdTime: '2026-01-01T00:00:00.000Z',
    passName: name,
    notificationHeader: text(255),
    passMetadata: {
      description: text(255),
      organizationName: text(255),
      backgroundColor: '#000000',
      displayTextColor: '#FFFFFF',
      passType: 'boardingPass',
      transit: {
        transitType: 'generic',
        carrier: text(255),
        number: 'x'.repeat(32),
        origin: { code: 'x'.repeat(16), name: text(255) },
        destination: { code: 'x'.repeat(16), name: text(255) },
        departureTime: '2026-05-01T08:00:00.000000000+02:00',
        arrivalTime: '2026-05-01T10:00:00.000000000+02:00',
      },
      ...face,
      backFields: backKeys.map((key) => ({
        key,
        label: text(255),
        value: Array.from({ length: 10 }, () => ({
          text: text(2000),
          link: url(2048),
          utmSource: text(100),
        })),
        changeMessage: text(255),
      })),
      qrUrl: url(2048),
      qrText: text(255),
      relevantDate: '2026-05-01T07:00:00.000000000+02:00',
      expirationDate: '2026-05-01T12:00:00.000000000+02:00',
      localizations: Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [
          `l${String.fromCharCode(97 + i)}-${'x'.repeat(8)}-${'y'.repeat(8)}-${'z'.repeat(8)}`,
          {
            description: text(255),
            organizationName: text(255),
            passName: text(255),
            fields: Object.fromEntries([
              ...faceKeys.map((key) => [key, { label: text(255), value: text(2000) }]),
              ...backKeys.map((key) => [key, { label: text(255) }]),
            ]),
          },
        ]),
      ),
    },
  };
}

function largestCampaign(name) {
  const note = text(2000);
  return {
    name,
    type: 'BoostedPost',
    status: 'NotStarted',
    startDate: '2026-03-01',
    endDate: '2026-03-31',
    isPublished: false,
    platforms: ['SocialA', 'SocialB'],
    targetViews: Number.MAX_SAFE_INTEGER,
    beforeViews: Number.MAX_SAFE_INTEGER,
    afterViews: Number.MAX_SAFE_INTEGER,
    deliveredViews: Number.MAX_SAFE_INTEGER,
    contentLink: url(2048),
    submissionNotes: text(5000),
    campaignData: { assetFolderLink: note, rec1: note, rec2: note, rec3: note, rec4: note },
  };
}

function largestImport(campaignId) {
  return Array.from({ length: 1000 }, (_, i) => ({
    id: '0193a5e0-8c11-7d2a-9f00-5b1e2c3d4e5f',
    campaignId,
    source: 'api',
    createdTime: '2026-03-14T12:00:00.000Z',
    updatedTime: '2026-03-14T12:00:00.000Z',
    platform: 'SocialA',
    videoURL: `https://socialA.example/v/${String(i).padStart(4, '0')}${'v'.repeat(2048 - 30)}`,
    creatorHandle: text(255),
    views: 2_147_483_647,
    likes: 2_147_483_647,
    shares: 2_147_483_647,
    comments: 2_147_483_647,
    saves: 2_147_483_647,
    datePosted: '2026-03-14',
  }));
}

async function main() {
  lib.printMachine();
  const service = await lib.startService('bodies', PORT, { TRUST_PROXY_HOPS: '1' });
  const pid = service.proc.child.pid;
  const auth = { authorization: `Bearer ${service.token}` };
  const base = service.base;
  let ip = 0;

  const pass = await lib.json(`${base}/v1/wallet-pass`, {
    method: 'POST',
    headers: auth,
    body: { passName: 'Bench pass', passMetadata: { description: 'd', organizationName: 'o' } },
  });
  const campaign = await lib.json(`${base}/v1/promo-campaign`, {
    method: 'POST',
    headers: auth,
    body: { name: 'Bench campaign' },
  });
  const maxUpload = 10 * 1024 * 1024;
  const uploadLimit = Math.ceil((maxUpload * 4) / 3) + 64 * 1024;
  const pdf = Buffer.alloc(maxUpload, 0x20);
  pdf.write('%PDF-1.7\n');
  const pdfBase64 = pdf.toString('base64');
  const manyKeys = (count) => Array.from({ length: count }, (_, i) => `"key${i}":0`).join(',');
  const passAttack = JSON.stringify({
    passName: 'Attack',
    passMetadata: {
      description: 'd',
      organizationName: 'o',
      secondaryFields: Array.from({ length: 200_000 }, () => ({})),
    },
  });
  const nestedUnderReadOnly = JSON.stringify({
    passName: 'Nested',
    passMetadata: { description: 'd', organizationName: 'o' },
    id: Array.from({ length: 2_000 }, () => Array.from({ length: 100 }, () => [])),
  });
  const hundredEmptyFields = JSON.stringify({
    passName: 'Empty fields',
    passMetadata: {
      description: 'd',
      organizationName: 'o',
      secondaryFields: Array.from({ length: 100 }, () => ({})),
    },
  });
  const invalidImport = JSON.stringify(
    Array.from({ length: 1000 }, () => ({ platform: 'Nope', videoURL: 'x', views: -1 })),
  );
  const logs = (count, entry) =>
    JSON.stringify({ logs: Array.from({ length: count }, () => entry) });

  let round = 0;
  /** name, expected status, how to send it: [path, method, body(), headers] */
  const cases = [
    // The largest bodies each body-taking route accepts.
    {
      name: 'POST /v1/wallet-pass: largest pass (boarding pass, 16 languages, texts as \\u escapes)',
      status: 201,
      path: '/v1/wallet-pass',
      body: () => asciiJson(largestPass(`Largest ${round} ${text(100)}`)),
      headers: auth,
    },
    {
      name: 'PATCH /v1/wallet-pass/{id}: the same largest pass',
      status: 200,
      method: 'PATCH',
      path: `/v1/wallet-pass/${pass.id}`,
      body: () => asciiJson(largestPass(`Largest patch ${round}`)),
      headers: auth,
    },
    {
      name: 'POST /v1/promo-campaign: largest campaign (texts as \\u escapes)',
      status: 201,
      path: '/v1/promo-campaign',
      body: () => asciiJson(largestCampaign(`Largest ${round} ${text(100)}`)),
      headers: auth,
    },
    {
      name: 'POST /v1/promo-campaign/{id}/video-performance: 1,000 records at every maximum',
      status: 201,
      path: `/v1/promo-campaign/${campaign.id}/video-performance`,
      body: () => asciiJson(largestImport(campaign.id)),
      headers: auth,
    },
    {
      name: 'POST /v1/uploads/storage: JSON, base64 file of UPLOAD_MAX_BYTES (10 MiB)',
      status: 201,
      path: '/v1/uploads/storage',
      body: () =>
        JSON.stringify({ file: pdfBase64, fileName: 'largest.pdf', bucket: 'campaign-assets' }),
      headers: auth,
    },
    {
      name: 'POST /v1/wallet-pass/notifications: 1,000-character message as \\u escapes',
      status: 201,
      path: '/v1/wallet-pass/notifications',
      body: () =>
        asciiJson({
          passSerialNumber: pass.id,
          notificationName: text(255),
          notificationMessage: text(1000),
          status: 'Draft',
        }),
      headers: auth,
    },
    {
      name: 'POST /v1/workspaces: name of 255 characters as \\u escapes',
      status: 201,
      path: '/v1/workspaces',
      body: () => asciiJson({ name: `${round} ${text(250)}` }),
      headers: auth,
    },
    {
      name: 'POST /passkit/v1/log: 20 entries within 8 KiB',
      status: 200,
      path: '/passkit/v1/log',
      body: () => logs(20, 'x'.repeat(350)),
      perIp: true,
    },
    // The attacks.
    {
      name: 'login: 200,000 unknown keys (2.7 MB)',
      status: 413,
      path: '/v1/auth/login',
      body: () => `{"email":"a@b.example","password":"x",${manyKeys(200_000)}}`,
    },
    {
      name: 'login: the same, chunked (no Content-Length)',
      status: 413,
      path: '/v1/auth/login',
      body: () => `{"email":"a@b.example","password":"x",${manyKeys(200_000)}}`,
      chunked: true,
    },
    {
      name: 'login: 3,000 keys under the 64 KiB limit',
      status: 400,
      path: '/v1/auth/login',
      body: () => `{"email":"a@b.example","password":"x",${manyKeys(3_000)}}`,
    },
    {
      name: 'login: gzip body inflating to 20 MB',
      status: 413,
      path: '/v1/auth/login',
      body: () => gzipSync(`{"email":"${' '.repeat(20 * 1024 * 1024)}"}`),
      headers: { 'content-encoding': 'gzip' },
    },
    {
      name: 'wallet-pass: 600 KB array of empty objects in secondaryFields',
      status: 400,
      path: '/v1/wallet-pass',
      body: () => passAttack,
      headers: auth,
    },
    {
      name: 'wallet-pass: 200,000 empty arrays under a read-only field (0.6 MB)',
      status: 400,
      path: '/v1/wallet-pass',
      body: () => nestedUnderReadOnly,
      headers: auth,
    },
    {
      name: 'wallet-pass: 100 empty secondaryFields (within limits; 201 problems, 50 listed)',
      status: 400,
      path: '/v1/wallet-pass',
      body: () => hundredEmptyFields,
      headers: auth,
    },
    {
      name: 'video-performance: 1,000 invalid records',
      status: 400,
      path: `/v1/promo-campaign/${campaign.id}/video-performance`,
      body: () => invalidImport,
      headers: auth,
    },
    {
      name: 'uploads: a 13 MB unknown key',
      status: 400,
      path: '/v1/uploads/storage',
      body: () => `{"${'k'.repeat(uploadLimit - 1024)}":1,"file":"AAAA","fileName":"a.pdf"}`,
      headers: auth,
    },
    {
      name: 'uploads: body one byte over the route limit',
      status: 413,
      path: '/v1/uploads/storage',
      body: () => `{"file":"${'A'.repeat(uploadLimit - 29)}","fileName":"a.pdf"}`,
      headers: auth,
    },
    {
      name: 'passkit log: 1 MB array',
      status: 413,
      path: '/passkit/v1/log',
      body: () => logs(100_000, 'flood'),
      perIp: true,
    },
    {
      name: 'passkit log: 11th post a minute from one IP',
      status: 429,
      path: '/passkit/v1/log',
      body: () => logs(1, 'x'),
      sameIp: '198.18.0.1',
    },
  ];

  // The per-IP case needs its first 10 posts spent.
  for (let i = 0; i < 10; i += 1) {
    await fetch(`${base}/passkit/v1/log`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.18.0.1' },
      body: logs(1, 'x'),
    }).then((r) => r.text());
  }

  const results = cases.map((c) => ({ ...c, cpu: [], wall: [], bytes: 0, answer: 0 }));
  for (round = 0; round < REPEAT; round += 1) {
    for (const result of results) {
      const body = result.body();
      const headers = { 'content-type': 'application/json', ...(result.headers ?? {}) };
      if (result.perIp) headers['x-forwarded-for'] = `198.19.${Math.floor(ip / 250)}.${ip++ % 250}`;
      if (result.sameIp !== undefined) headers['x-forwarded-for'] = result.sameIp;
      const payload = result.chunked
        ? new ReadableStream({
            start(controller) {
              const bytes = Buffer.from(body);
              for (let at = 0; at < bytes.length; at += 64 * 1024) {
                controller.enqueue(bytes.subarray(at, at + 64 * 1024));
              }
              controller.close();
            },
          })
        : body;
      await lib.sleep(50);
      const before = cpuNs(pid);
      const started = performance.now();
      const response = await fetch(`${base}${result.path}`, {
        method: result.method ?? 'POST',
        headers,
        body: payload,
        ...(result.chunked ? { duplex: 'half' } : {}),
      });
      const answer = await response.text();
      const wall = performance.now() - started;
      await lib.sleep(20); // anything the request left on the event loop
      const cpu = (cpuNs(pid) - before) / 1e6;
      if (response.status !== result.status) {
        throw new Error(
          `${result.name}: expected ${result.status}, got ${response.status} ${answer.slice(0, 300)}`,
        );
      }
      result.cpu.push(cpu);
      result.wall.push(wall);
      result.bytes = Buffer.byteLength(body);
      result.answer = Buffer.byteLength(answer);
    }
  }

  const rows = results.map((r) => ({
    case: r.name,
    status: r.status,
    'request bytes': r.bytes,
    'answer bytes': r.answer,
    'CPU ms worst': Number(Math.max(...r.cpu).toFixed(1)),
    'CPU ms median': Number(
      [...r.cpu].sort((a, b) => a - b)[Math.floor(r.cpu.length / 2)].toFixed(1),
    ),
    'wall ms worst': Number(Math.max(...r.wall).toFixed(1)),
  }));
  console.table(rows);
  const accepted = rows.filter((r) => r.status < 300);
  const refused = rows.filter((r) => r.status >= 400);
  const worst = (list) => list.reduce((a, b) => (b['CPU ms worst'] > a['CPU ms worst'] ? b : a));
  const a = worst(accepted);
  const b = worst(refused);
  console.log(`worst accepted body: ${a['CPU ms worst']} ms CPU (${a.case})`);
  console.log(`worst refused body:  ${b['CPU ms worst']} ms CPU (${b.case})`);
  console.log(`service peak RSS: ${peakRssMiB(pid)} MiB; rounds: ${REPEAT}`);
}

lib.run(main, 10 * 60_000);
