'use strict';
/**
 * Shared helpers of the benchmarks (plain CommonJS run by `node`, no compile step: see
 * BENCHMARKS.md). Everything talks to 127.0.0.1 only; every database and process made here is
 * removed by `cleanup()`, which the scripts call on exit, on errors and on a time-out.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { existsSync, readFileSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { deflateSync } = require('node:zlib');
const mysql = require('mysql2/promise');

const ROOT = join(__dirname, '..');
const MAIN_JS = join(ROOT, 'dist/apps/api/src/main.js');
const SERVER_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const OWNER_EMAIL = 'owner@bench.example';
const OWNER_PASSWORD = 'bench-owner-password-1';
const JWT_SECRET = 'bench-secret-that-is-at-least-32-characters-long';

const cleanups = [];
let cleaning;

function onCleanup(fn) {
  cleanups.push(fn);
}

async function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (error) {
        process.stderr.write(`cleanup: ${error instanceof Error ? error.message : error}\n`);
      }
    }
  })();
  return cleaning;
}

/** Runs `main` with a hard time limit; always cleans up; exit code 1 on failure. */
function run(main, limitMs = 10 * 60_000) {
  const timer = setTimeout(() => {
    process.stderr.write(`time limit of ${limitMs} ms reached\n`);
    void cleanup().then(() => process.exit(2));
  }, limitMs);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => void cleanup().then(() => process.exit(130)));
  }
  main()
    .then(async () => {
      clearTimeout(timer);
      await cleanup();
      process.exit(0);
    })
    .catch(async (error) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
      clearTimeout(timer);
      await cleanup();
      process.exit(1);
    });
}

function requireBuild() {
  if (!existsSync(MAIN_JS)) throw new Error('Run `npm run build` first (dist/ is missing)');
}

/** A fresh, empty MariaDB database, dropped at clean-up. Returns its URL. */
async function createDatabase(label) {
  const name = `wps_bench_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await mysql.createConnection(SERVER_URL);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  onCleanup(async () => {
    const connection = await mysql.createConnection(SERVER_URL);
    await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await connection.end();
  });
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** A fresh SQLite database: a file in the temp folder, removed with its WAL files at clean-up. */
function createSqliteDatabase(label) {
  const name = `wps-bench-${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const path = join(os.tmpdir(), `${name}.sqlite`);
  onCleanup(() => {
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  });
  return { name, path };
}

/**
 * The service's environment on `database`: a MariaDB URL (`createDatabase(...).url`), or an
 * SQLite database (`createSqliteDatabase(...)`).
 */
function serviceEnv(database, port, extra = {}) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(typeof database === 'string'
      ? { DB_TYPE: 'mysql', DB_URL: database }
      : { DB_TYPE: 'sqlite', DB_PATH: database.path }),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    WORKER_ENABLED: 'false',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    JWT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL: OWNER_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: OWNER_PASSWORD,
    STORAGE_DIR: join(os.tmpdir(), `wps-bench-storage-${process.pid}`),
    WALLET_A_DEV_CERT_DIR: join(os.tmpdir(), `wps-bench-certs-${process.pid}`),
    ...extra,
  };
}

/** Starts a node process, waits until `readyUrl` answers 200; killed at clean-up. */
async function startProcess(label, args, env, readyUrl, timeoutMs = 60_000) {
  const child = spawn(process.execPath, args, {
    env,
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  onCleanup(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${label} exited:\n${output}`);
    try {
      const response = await fetch(readyUrl);
      if (response.ok) return { child, output: () => output };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${label} did not become ready:\n${output}`);
}

/**
 * Starts the built service on `database` (see serviceEnv) and waits until it answers. Processes
 * of one bench share their storage folder and signing material, so a second process on the same
 * database serves the same passes.
 */
async function startServiceProcess(database, port, extraEnv = {}, nodeArgs = []) {
  requireBuild();
  const env = serviceEnv(database, port, extraEnv);
  onCleanup(() => {
    rmSync(env.STORAGE_DIR, { recursive: true, force: true });
    rmSync(env.WALLET_A_DEV_CERT_DIR, { recursive: true, force: true });
  });
  const proc = await startProcess(
    'service',
    [...nodeArgs, MAIN_JS],
    env,
    `http://127.0.0.1:${port}/health`,
  );
  return { base: `http://127.0.0.1:${port}`, proc };
}

/**
 * Builds the service's own API on a new database (MariaDB, or SQLite with
 * `{ dialect: 'sqlite' }`) and returns an API key of the owner.
 */
async function startService(label, port, extraEnv = {}, nodeArgs = [], { dialect = 'mysql' } = {}) {
  const db = dialect === 'sqlite' ? createSqliteDatabase(label) : await createDatabase(label);
  const { base, proc } = await startServiceProcess(
    dialect === 'sqlite' ? db : db.url,
    port,
    extraEnv,
    nodeArgs,
  );
  const login = await json(`${base}/v1/auth/login`, {
    method: 'POST',
    body: { email: OWNER_EMAIL, password: OWNER_PASSWORD },
  });
  const token = login.accessToken;
  const created = await json(`${base}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: { name: 'bench' },
  });
  return { db, base, token, apiKey: created.key, proc };
}

async function json(url, { method = 'GET', headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (fields 14
 * and 15, in clock ticks of 1/100 s: USER_HZ is 100 on Linux).
 */
function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after it are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function machine() {
  const memory = (bytes) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memTotal: memory(os.totalmem()),
    memFree: memory(os.freemem()),
    load: os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' '),
    node: process.version,
  };
}

function printMachine() {
  const m = machine();
  console.log(
    `machine: nproc=${m.nproc} cpu="${m.cpu}" mem=${m.memTotal} (free ${m.memFree}) load=${m.load} node=${m.node}`,
  );
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function pngChunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  let crc = 0xffffffff;
  for (const byte of body) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const framed = Buffer.alloc(body.length + 8);
  framed.writeUInt32BE(data.length, 0);
  body.copy(framed, 4);
  framed.writeUInt32BE((crc ^ 0xffffffff) >>> 0, body.length + 4);
  return framed;
}

/**
 * An RGBA PNG for the pass images the benches upload: blank (the smallest there is, when the
 * content does not matter), or of random pixels (so it does not compress away: a realistic
 * package size).
 */
function png(width = 1, height = 1, { random = false } = {}) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc((width * 4 + 1) * height);
  if (random) {
    for (let y = 0; y < height; y++) randomBytes(width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Uploads a logo, an icon and a strip (1×1 PNGs) as `headers` authorise, and returns the
 * `uploadInfoList` a Published pass takes.
 */
async function uploadPassImages(base, headers) {
  const uploadInfoList = [];
  for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
    const upload = await json(`${base}/v1/uploads/storage`, {
      method: 'POST',
      headers,
      body: { file: png().toString('base64'), fileName, bucket: 'pass-assets' },
    });
    uploadInfoList.push({ fileName, uploadKey: upload.uploadKey });
  }
  return uploadInfoList;
}

module.exports = {
  ROOT,
  SERVER_URL,
  cleanup,
  cpuMsOf,
  createDatabase,
  createSqliteDatabase,
  json,
  machine,
  onCleanup,
  percentile,
  png,
  printMachine,
  readJson,
  requireBuild,
  run,
  serviceEnv,
  sleep,
  startProcess,
  startService,
  startServiceProcess,
  uploadPassImages,
};
