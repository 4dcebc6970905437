'use strict';
/**
 * bench:audience — `POST /v1/wallet-pass/{id}/audience` over 1,000,000 holders of one pass
 * (target: a three-condition audience counted in ≤ 2 s on MariaDB).
 *
 *   1. The built service on a MariaDB database (it runs the migrations), one Published pass
 *      with a `points` face field made through the API.
 *   2. BENCH_HOLDERS holders of that pass seeded by SQL (multi-row INSERTs on two connections):
 *      the holder rows and their `holder_tag` and `holder_value` rows, as the service writes
 *      them. The spread comes from a seeded generator, so a reused database still has known
 *      answers: each holder has 0–3 of 10 tags ("gold" 10 %), a `city` attribute (20 cities,
 *      "Zurich" 5 %; 10 % have none), a `spend` attribute (a number 0–2000; 10 % have none), an
 *      own `points` value ("0".."5000" as text; 5 % show the pass's "0"), 2 % Voided.
 *   3. Per audience: BENCH_WARMUP calls, then BENCH_RUNS timed calls one after another (median,
 *      min, max as the client sees them; a 503, the service's 4 s query deadline, counted
 *      apart, and the bench waits until MariaDB has finished the statement the service gave
 *      up on), each answer checked against the generator's count; the pages InnoDB read from
 *      disk meanwhile (the whole server's); the same statement alone on a plain connection; its
 *      EXPLAIN (and ANALYZE for the first audience).
 *
 *   BENCH_HOLDERS (1000000)  BENCH_RUNS (10)  BENCH_WARMUP (3)  BENCH_PORT (3170)
 *   BENCH_DB=<name>: use (and keep) this database: seeded the first time, reused afterwards
 *     when it holds the bench's pass with BENCH_HOLDERS holders (its schema as migrated then: a
 *     changed migration needs a new name). Without it, a fresh database is dropped at the end.
 *   BENCH_JSON=1: each audience also counted by MariaDB's JSON functions on the holder rows'
 *     own `tags`, `attributes` and `field_values` (a full scan), for comparison.
 *   BENCH_MYSQL_URL (lib.js): another server, e.g. one whose buffer pool holds the tables.
 *   BENCH_QUERY_TIMEOUT_MS: the service's DB_QUERY_TIMEOUT_MS (its default: 4000).
 *   BENCH_NOTIFY=1: then one notification to each audience, sent through the service's own
 *     worker with its default settings: POST → final status, and its audienceSize checked
 *     against the generator (the pass has no devices, so the time is the snapshot's).
 *   BENCH_ONLY=<n,…>: measure only these audiences (0-based positions in AUDIENCES).
 *   BENCH_BUFFER_POOL: the InnoDB buffer pool for the timed calls, as a server holding these
 *     tables is sized (docs/operations.md, "Database and migrations"): `fit` (default) raises the server's
 *     pool to hold the pass's tables and indexes when it is smaller, `keep` measures the server
 *     as it is configured, or a size in MiB. A raised pool is set back at the end.
 */
const mysql = require('mysql2/promise');
const { newId } = require('../dist/libs/core/src/ids/ids.js');
const { sqlDialect } = require('../dist/libs/core/src/database/dialect.js');
const { readAudience } = require('../dist/libs/audiences/src/audience.js');
const { audienceSizeQuery } = require('../dist/libs/audiences/src/audience-sql.js');
const { faceFieldsOf } = require('../dist/libs/passes/src/pass-kinds.js');
const lib = require('./lib');

const HOLDERS = Number(process.env.BENCH_HOLDERS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 3170);
const KEPT_DB = process.env.BENCH_DB;
const WITH_JSON = process.env.BENCH_JSON === '1';
const QUERY_TIMEOUT_MS = process.env.BENCH_QUERY_TIMEOUT_MS;
const NOTIFY = process.env.BENCH_NOTIFY === '1';
const ONLY = process.env.BENCH_ONLY?.split(',').map(Number);
const BUFFER_POOL = process.env.BENCH_BUFFER_POOL ?? 'fit';
const PASS_NAME = 'Audience bench';
const TARGET_MS = 2000;
/** Holders per seeding batch (one transaction of three multi-row INSERTs). */
const BATCH = 2000;
const SEED = 20261127;

const TAGS = [
  'silver',
  'bronze',
  'vip',
  'newsletter',
  'app',
  'store',
  'online',
  'student',
  'family',
];
// prettier-ignore
const CITIES = [
  'Zurich', 'Geneva', 'Basel', 'Bern', 'Lausanne', 'Lucerne', 'Lugano', 'Winterthur', 'St. Gallen',
  'Biel', 'Thun', 'Chur', 'Fribourg', 'Neuchatel', 'Sion', 'Zug', 'Aarau', 'Baden', 'Olten',
  'Schaffhausen',
];

const GOLD = { tag: 'gold' };
const SPEND = { attribute: 'spend', gt: 1000 };
const POINTS = { field: 'points', gte: 2500 };
const ZURICH = { attribute: 'city', eq: 'Zurich' };
/**
 * BENCH_JSON=1: each audience also counted from the holder row's own JSON columns (`tags`,
 * `attributes`, `field_values`), as if audiences read those instead of `holder_tag` and
 * `holder_value` (MariaDB's JSON functions; written for this data, not the general case).
 */
const JSON_TESTS = {
  gold: `JSON_CONTAINS(h.tags, '"gold"')`,
  spend: `COALESCE(JSON_VALUE(h.attributes, '$.spend') > 1000, 0)`,
  points: (test) => `COALESCE(JSON_VALUE(h.field_values, '$.points'), '0') + 0 ${test}`,
  zurich: `COALESCE(JSON_VALUE(h.attributes, '$.city') = 'Zurich' COLLATE utf8mb4_bin, 0)`,
};
/** The audiences measured, and the same test on a generated holder. */
const AUDIENCES = [
  {
    name: 'all (3 conditions)',
    audience: { all: [GOLD, SPEND, POINTS] },
    matches: (h) => h.active && h.gold && h.spend > 1000 && h.points >= 2500,
    json: `${JSON_TESTS.gold} AND ${JSON_TESTS.spend} AND ${JSON_TESTS.points('>= 2500')}`,
  },
  {
    name: 'any (3 conditions)',
    audience: { any: [GOLD, SPEND, POINTS] },
    matches: (h) => h.active && (h.gold || h.spend > 1000 || h.points >= 2500),
    json: `(${JSON_TESTS.gold} OR ${JSON_TESTS.spend} OR ${JSON_TESTS.points('>= 2500')})`,
  },
  {
    name: 'all with a not',
    audience: { all: [GOLD, { not: SPEND }, POINTS] },
    matches: (h) => h.active && h.gold && !(h.spend > 1000) && h.points >= 2500,
    json: `${JSON_TESTS.gold} AND NOT ${JSON_TESTS.spend} AND ${JSON_TESTS.points('>= 2500')}`,
  },
  {
    name: 'not (all)',
    audience: { not: { all: [GOLD, SPEND, POINTS] } },
    matches: (h) => h.active && !(h.gold && h.spend > 1000 && h.points >= 2500),
    json: `NOT (${JSON_TESTS.gold} AND ${JSON_TESTS.spend} AND ${JSON_TESTS.points('>= 2500')})`,
  },
  {
    name: 'one text test',
    audience: ZURICH,
    matches: (h) => h.active && h.city === 'Zurich',
    json: JSON_TESTS.zurich,
  },
  {
    name: 'one rare number test',
    audience: { attribute: 'spend', gt: 1990 },
    matches: (h) => h.active && h.spend > 1990,
    json: `COALESCE(JSON_VALUE(h.attributes, '$.spend') > 1990, 0)`,
  },
  {
    // The pass's "0" passes `lt`: holders without their own points match through the fallback.
    name: 'all, field fallback',
    audience: { all: [GOLD, ZURICH, { field: 'points', lt: 100 }] },
    matches: (h) => h.active && h.gold && h.city === 'Zurich' && h.points < 100,
    json: `${JSON_TESTS.gold} AND ${JSON_TESTS.zurich} AND ${JSON_TESTS.points('< 100')}`,
  },
];

/** mulberry32: a small seeded generator, so a batch's holders are the same on every run. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generated holders of batch `index`: what they carry, not yet their rows. */
function batchHolders(index) {
  const random = generator(SEED + index);
  const from = index * BATCH;
  const holders = [];
  for (let n = from; n < Math.min(HOLDERS, from + BATCH); n++) {
    const gold = random() < 0.1;
    const others = Math.floor(random() * (gold ? 3 : 4));
    const tags = new Set(gold ? ['gold'] : []);
    while (tags.size < others + (gold ? 1 : 0)) tags.add(TAGS[Math.floor(random() * TAGS.length)]);
    const hasCity = random() < 0.9;
    const city = CITIES[Math.floor(random() * CITIES.length)];
    const hasSpend = random() < 0.9;
    const spend = Math.round(random() * 200_000) / 100;
    const hasPoints = random() < 0.95;
    const points = Math.floor(random() * 5001);
    const active = random() >= 0.02;
    const installed = random() < 0.6 ? 1 : 0;
    holders.push({
      n,
      tags: [...tags].sort(),
      gold,
      city: hasCity ? city : null,
      spend: hasSpend ? spend : null,
      // Without an own value the holder shows the pass's "0".
      ownPoints: hasPoints ? String(points) : null,
      points: hasPoints ? points : 0,
      active,
      installed,
    });
  }
  return holders;
}

const batches = () => Math.ceil(HOLDERS / BATCH);

/** Expected answers of every audience, from the generator alone. */
function expectedCounts() {
  const counts = AUDIENCES.map(() => 0);
  for (let index = 0; index < batches(); index++) {
    for (const holder of batchHolders(index)) {
      AUDIENCES.forEach((each, at) => {
        if (each.matches(holder)) counts[at] += 1;
      });
    }
  }
  return counts;
}

async function seed(dbUrl, workspaceId, passId, userId) {
  const started = Date.now();
  const counts = { holders: 0, tags: 0, values: 0 };
  let next = 0;
  const insertBatch = async (connection, index) => {
    // As TypeORM writes a datetime(3): UTC text.
    const now = new Date().toISOString().replace('T', ' ').slice(0, 23);
    const holderRows = [];
    const tagRows = [];
    const valueRows = [];
    for (const holder of batchHolders(index)) {
      const id = newId();
      const attributes = {};
      if (holder.city !== null) attributes.city = holder.city;
      if (holder.spend !== null) attributes.spend = holder.spend;
      const fieldValues = holder.ownPoints === null ? {} : { points: holder.ownPoints };
      holderRows.push([
        id,
        now,
        now,
        userId,
        userId,
        workspaceId,
        passId,
        `member-${holder.n}`,
        `S${id.replace(/-/g, '')}`,
        `t${id.replace(/-/g, '')}${holder.n.toString(36)}`,
        holder.active ? 'Active' : 'Voided',
        JSON.stringify(fieldValues),
        JSON.stringify(holder.tags),
        JSON.stringify(attributes),
        holder.installed,
        0,
        1,
        holder.active ? null : now,
      ]);
      for (const tag of holder.tags) tagRows.push([id, tag, passId]);
      if (holder.city !== null) valueRows.push([id, 'a', 'city', passId, 's', holder.city, null]);
      if (holder.spend !== null) {
        valueRows.push([id, 'a', 'spend', passId, 'n', String(holder.spend), holder.spend]);
      }
      if (holder.ownPoints !== null) {
        valueRows.push([id, 'f', 'points', passId, 's', holder.ownPoints, holder.points]);
      }
    }
    await connection.beginTransaction();
    await connection.query(
      'INSERT INTO holder (id, created_time, updated_time, created_by, updated_by, workspace_id, ' +
        'pass_id, external_id, serial_number, holder_token, status, field_values, tags, ' +
        'attributes, apple_installed_count, google_installed_count, version, voided_time) VALUES ?',
      [holderRows],
    );
    await connection.query('INSERT INTO holder_tag (holder_id, tag, pass_id) VALUES ?', [tagRows]);
    await connection.query(
      'INSERT INTO holder_value (holder_id, source, name, pass_id, value_type, text_value, ' +
        'number_value) VALUES ?',
      [valueRows],
    );
    await connection.commit();
    counts.holders += holderRows.length;
    counts.tags += tagRows.length;
    counts.values += valueRows.length;
  };
  // Two connections: one batch is built while the other is written.
  const worker = async () => {
    const connection = await mysql.createConnection(dbUrl);
    try {
      await connection.query('SET SESSION foreign_key_checks = 0, unique_checks = 0');
      for (let index = next++; index < batches(); index = next++) {
        await insertBatch(connection, index);
        if (index % 50 === 49) {
          process.stdout.write(`\r  seeded ${counts.holders.toLocaleString('en')} holders`);
        }
      }
    } finally {
      await connection.end();
    }
  };
  await Promise.all([worker(), worker()]);
  process.stdout.write('\n');
  const analyzeStarted = Date.now();
  const connection = await mysql.createConnection(dbUrl);
  await connection.query('ANALYZE TABLE holder, holder_tag, holder_value');
  await connection.end();
  return {
    ...counts,
    insertMs: analyzeStarted - started,
    analyzeMs: Date.now() - analyzeStarted,
  };
}

/** The service on BENCH_DB (created when missing, never dropped) or on a fresh database. */
async function database() {
  if (KEPT_DB === undefined) return lib.createDatabase('audience');
  if (!/^[A-Za-z0-9_]+$/.test(KEPT_DB)) throw new Error('BENCH_DB: letters, digits and _ only');
  const admin = await mysql.createConnection(lib.SERVER_URL);
  await admin.query(
    `CREATE DATABASE IF NOT EXISTS \`${KEPT_DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await admin.end();
  const url = new URL(lib.SERVER_URL);
  url.pathname = `/${KEPT_DB}`;
  return { name: KEPT_DB, url: url.toString() };
}

const MIB = 2 ** 20;

/** The tables an audience reads, with their indexes, in bytes (InnoDB's estimate). */
async function audienceTablesBytes(connection) {
  const [[row]] = await connection.query(
    'SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables ' +
      "WHERE table_schema = DATABASE() AND table_name IN ('holder', 'holder_tag', 'holder_value')",
  );
  return Number(row.bytes);
}

/**
 * Sizes the buffer pool as BENCH_BUFFER_POOL says. MariaDB's default pool (128 MiB) holds a
 * twentieth of a million holders' tables, so its calls read the disk; a server that keeps such a
 * pass is given a pool that holds them. Resizing happens online, in chunks; it is waited for.
 */
async function sizeBufferPool(connection) {
  const [[{ pool }]] = await connection.query('SELECT @@innodb_buffer_pool_size AS pool');
  const current = Number(pool);
  const tables = await audienceTablesBytes(connection);
  const describe = (bytes) => `${(bytes / MIB).toFixed(0)} MiB`;
  let wanted = current;
  if (BUFFER_POOL === 'fit') {
    // Room for the tables and a quarter more (other databases, the change buffer, hash index).
    wanted = Math.max(current, Math.ceil((tables * 1.25) / (128 * MIB)) * 128 * MIB);
  } else if (BUFFER_POOL !== 'keep') {
    const mib = Number(BUFFER_POOL);
    if (!Number.isInteger(mib) || mib < 128) {
      throw new Error('BENCH_BUFFER_POOL: fit, keep or a size in MiB (at least 128)');
    }
    wanted = mib * MIB;
  }
  console.log(
    `buffer pool: ${describe(current)} on the server; holder, holder_tag and holder_value with ` +
      `their indexes ${describe(tables)}` +
      (wanted === current ? '; kept' : `; set to ${describe(wanted)} for this run`),
  );
  if (wanted === current) return;
  await setBufferPool(connection, wanted);
  lib.onCleanup(async () => {
    const admin = await mysql.createConnection(lib.SERVER_URL);
    try {
      await setBufferPool(admin, current);
      console.log(`buffer pool: set back to ${describe(current)}`);
    } finally {
      await admin.end();
    }
  });
}

/** Sets the pool and waits until its pages are there (MariaDB resizes online, in the background). */
async function setBufferPool(connection, bytes) {
  await connection.query('SET GLOBAL innodb_buffer_pool_size = ?', [bytes]);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [[status]] = await connection.query(
      "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'",
    );
    const [[{ pageSize }]] = await connection.query('SELECT @@innodb_page_size AS pageSize');
    const poolBytes = Number(status.Value) * Number(pageSize);
    // The page count leaves out the pool's own bookkeeping, a few per cent of its size.
    if (Math.abs(poolBytes - bytes) <= bytes * 0.05) return;
    if (Date.now() > deadline) throw new Error(`buffer pool resize unfinished: ${poolBytes} B`);
    await lib.sleep(200);
  }
}

async function startService(db) {
  const { base, proc } = await lib.startServiceProcess(db.url, PORT, {
    ...(QUERY_TIMEOUT_MS === undefined ? {} : { DB_QUERY_TIMEOUT_MS: QUERY_TIMEOUT_MS }),
    // The worker runs in the service for BENCH_NOTIFY, as `npm start` runs it.
    ...(NOTIFY ? { WORKER_ENABLED: 'true' } : {}),
  });
  lib.onCleanup(() => {
    if (proc.child.exitCode !== null) console.error(proc.output());
  });
  const login = await lib.json(`${base}/v1/auth/login`, {
    method: 'POST',
    body: { email: 'owner@bench.example', password: 'bench-owner-password-1' },
  });
  const created = await lib.json(`${base}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${login.accessToken}` },
    body: { name: 'bench' },
  });
  return { base, headers: { 'api-key': created.key }, output: proc.output };
}

/** The bench's pass of a reused database when it is fully seeded; otherwise a new one. */
async function benchPass(connection, base, headers) {
  const [found] = await connection.query(
    'SELECT p.id, (SELECT COUNT(*) FROM holder h WHERE h.pass_id = p.id) AS holders ' +
      'FROM pass p WHERE p.pass_name = ? ORDER BY p.id DESC LIMIT 1',
    [PASS_NAME],
  );
  if (found.length === 1 && Number(found[0].holders) === HOLDERS) {
    return {
      pass: await lib.json(`${base}/v1/wallet-pass/${found[0].id}`, { headers }),
      reused: true,
    };
  }
  if (found.length === 1) {
    throw new Error(
      `${KEPT_DB} holds a bench pass of ${found[0].holders} holders, not ${HOLDERS}: drop it or use another BENCH_DB`,
    );
  }
  const pass = await lib.json(`${base}/v1/wallet-pass`, {
    method: 'POST',
    headers,
    body: {
      passName: PASS_NAME,
      status: 'Published',
      passMetadata: {
        description: 'Loyalty card',
        organizationName: 'Brand Ltd',
        topField: { key: 'points', label: 'Points', value: '0' },
        secondaryFields: [{ key: 'name', label: 'Name', value: '' }],
        qrUrl: 'https://brand.example/member',
      },
      uploadInfoList: await lib.uploadPassImages(base, headers),
    },
  });
  return { pass, reused: false };
}

async function time(fn) {
  const started = process.hrtime.bigint();
  const answer = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, answer };
}

/**
 * Waits until no size statement runs on `database` any more (a call that answered 503 may
 * leave its statement running), and returns how long that took.
 */
async function finishedOnServer(connection, database) {
  const started = Date.now();
  for (;;) {
    const [rows] = await connection.query(
      'SELECT COUNT(*) AS running FROM information_schema.PROCESSLIST ' +
        "WHERE DB = ? AND INFO LIKE 'SELECT COUNT(*) AS holders%'",
      [database],
    );
    if (Number(rows[0].running) === 0) return Date.now() - started;
    await lib.sleep(100);
  }
}

/** Pages InnoDB read from disk so far (the whole server's: other clients' reads count too). */
async function diskReads(connection) {
  const [[row]] = await connection.query("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_reads'");
  return Number(row.Value);
}

const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return { median: lib.percentile(sorted, 50), min: sorted[0], max: sorted[sorted.length - 1] };
};

/** A plan row without its long list of candidate indexes. */
// eslint-disable-next-line no-unused-vars
const withoutPossibleKeys = ({ possible_keys, ...row }) => row;

function printRows(title, rows) {
  console.log(title);
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cell = (value) => (value === null ? 'NULL' : String(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values) => values.map((v, i) => v.padEnd(widths[i])).join(' | ');
  console.log(line(columns));
  console.log(widths.map((w) => '-'.repeat(w)).join('-+-'));
  for (const row of rows) console.log(line(columns.map((c) => cell(row[c]))));
}

/**
 * One notification to each audience through the service's worker: POST → final status, with the
 * audienceSize it recorded checked against the generator.
 */
async function notifyEach(service, pass, expected) {
  const rows = [];
  for (const [at, each] of AUDIENCES.entries()) {
    if (ONLY !== undefined && !ONLY.includes(at)) continue;
    const started = Date.now();
    const created = await lib.json(`${service.base}/v1/wallet-pass/notifications`, {
      method: 'POST',
      headers: service.headers,
      body: {
        passSerialNumber: pass.id,
        notificationName: `Bench ${each.name}`,
        notificationMessage: 'Hello',
        audience: each.audience,
      },
    });
    let read;
    for (;;) {
      read = await lib.json(`${service.base}/v1/wallet-pass/notifications/${created.id}`, {
        headers: service.headers,
      });
      if (!['Processing', 'Initializing', 'Finalizing'].includes(read.status)) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`${each.name}: still ${read.status}`);
      await lib.sleep(250);
    }
    if (read.audienceSize !== expected[at]) {
      throw new Error(`${each.name}: audienceSize ${read.audienceSize}, expected ${expected[at]}`);
    }
    rows.push({
      audience: each.name,
      audienceSize: read.audienceSize,
      status: read.status,
      'POST → final, s': ((Date.now() - started) / 1000).toFixed(1),
    });
  }
  console.log('\nOne notification to each audience (no devices: the time is the snapshot)');
  console.table(rows);
}

/** `EXPLAIN`/`ANALYZE` of a statement, after the MariaDB settings that lead it, if any. */
const withVerb = (verb, sql) =>
  sql.replace(/^(\/\*M!.*?\*\/ )?/, (settings) => `${settings}${verb} `);

async function main() {
  lib.printMachine();
  const db = await database();
  const service = await startService(db);
  const connection = await mysql.createConnection(db.url);
  lib.onCleanup(() => connection.end());
  const [[server]] = await connection.query(
    'SELECT VERSION() AS version, @@innodb_buffer_pool_size AS pool',
  );
  console.log(
    `MariaDB ${server.version}, innodb_buffer_pool_size ${(Number(server.pool) / 2 ** 20).toFixed(0)} MiB; database ${db.name}${KEPT_DB ? ' (BENCH_DB, kept)' : ''}`,
  );
  for (const table of ['holder_tag', 'holder_value']) {
    const [keys] = await connection.query(`SHOW INDEX FROM ${table}`);
    const indexes = new Map();
    for (const key of keys) {
      const column = key.Sub_part ? `${key.Column_name}(${key.Sub_part})` : key.Column_name;
      indexes.set(key.Key_name, [...(indexes.get(key.Key_name) ?? []), column]);
    }
    console.log(
      `${table}: ${[...indexes].map(([name, columns]) => `${name} (${columns.join(', ')})`).join(', ')}`,
    );
  }
  const { pass, reused } = await benchPass(connection, service.base, service.headers);
  const [[owner]] = await connection.query(
    'SELECT workspace_id, created_by FROM pass WHERE id = ?',
    [pass.id],
  );
  if (reused) {
    console.log(`seeding: skipped, ${HOLDERS.toLocaleString('en')} holders already in ${db.name}`);
  } else {
    console.log(`seeding ${HOLDERS.toLocaleString('en')} holders of pass ${pass.id} …`);
    const seeded = await seed(db.url, owner.workspace_id, pass.id, owner.created_by);
    console.log(
      `seeding: ${seeded.holders.toLocaleString('en')} holders, ${seeded.tags.toLocaleString('en')} holder_tag rows, ` +
        `${seeded.values.toLocaleString('en')} holder_value rows in ${(seeded.insertMs / 1000).toFixed(1)} s ` +
        `(ANALYZE TABLE ${(seeded.analyzeMs / 1000).toFixed(1)} s)`,
    );
  }
  await sizeBufferPool(connection);
  const expected = expectedCounts();

  const dialect = sqlDialect({ options: { type: 'mysql' } });
  const fieldDefaults = new Map(
    faceFieldsOf(pass.passMetadata).map(({ key, value }) => [key, value]),
  );
  const fieldKeys = [...fieldDefaults.keys()];
  const url = `${service.base}/v1/wallet-pass/${pass.id}/audience`;
  /** One call: its time, and its answer, or null when the query outran the service's deadline. */
  let said503 = false;
  const call = async (audience) => {
    let started;
    let response;
    for (let attempt = 1; ; attempt++) {
      try {
        started = process.hrtime.bigint();
        response = await fetch(url, {
          method: 'POST',
          headers: { ...service.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ audience }),
        });
        break;
      } catch (error) {
        // A keep-alive socket the service closed under us; more than that is a real failure.
        if (attempt >= 3) {
          console.error(service.output());
          throw error;
        }
      }
    }
    const text = await response.text();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.status === 503) {
      // The service closed its connection; MariaDB may finish the statement all the same.
      if (!said503) console.log(`first 503: ${JSON.parse(text).errorMessage}`);
      said503 = true;
      return { ms, answer: null, overran: await finishedOnServer(connection, db.name) };
    }
    if (!response.ok) {
      console.error(service.output());
      throw new Error(`POST ${url}: ${response.status} ${text}`);
    }
    return { ms, answer: JSON.parse(text) };
  };
  const results = [];
  const explained = [];
  for (const [at, each] of AUDIENCES.entries()) {
    if (ONLY !== undefined && !ONLY.includes(at)) continue;
    for (let i = 0; i < WARMUP; i++) await call(each.audience);
    const times = [];
    let unavailable = 0;
    const overran = [];
    let holders = null;
    const readsBefore = await diskReads(connection);
    for (let i = 0; i < RUNS; i++) {
      const run = await call(each.audience);
      const { ms, answer } = run;
      if (answer === null) {
        unavailable += 1;
        overran.push(run.overran);
        continue;
      }
      times.push(ms);
      holders = answer.holders;
      if (holders !== expected[at]) {
        throw new Error(`${each.name}: ${holders} holders, expected ${expected[at]}`);
      }
    }
    const reads = ((await diskReads(connection)) - readsBefore) / RUNS;
    const query = audienceSizeQuery(
      owner.workspace_id,
      readAudience(each.audience, fieldKeys),
      { id: pass.id, fieldDefaults },
      dialect,
    );
    const sqlTimes = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const { ms, answer } = await time(() => connection.query(query.sql, query.params));
      sqlTimes.push(ms);
      if (Number(answer[0][0].holders) !== expected[at]) {
        throw new Error(`${each.name}: the SQL counted ${answer[0][0].holders}`);
      }
    }
    const jsonTimes = [];
    if (WITH_JSON) {
      const sql =
        "SELECT COUNT(*) AS holders FROM holder h WHERE h.workspace_id = ? AND h.pass_id = ? AND h.status = 'Active' AND " +
        each.json;
      for (let i = 0; i < Math.min(RUNS, 3); i++) {
        const { ms, answer } = await time(() =>
          connection.query(sql, [owner.workspace_id, pass.id]),
        );
        jsonTimes.push(ms);
        if (Number(answer[0][0].holders) !== expected[at]) {
          throw new Error(`${each.name}: the JSON scan counted ${answer[0][0].holders}`);
        }
      }
    }
    const api = summary(times);
    const round = (ms) => (ms === undefined || Number.isNaN(ms) ? '—' : Math.round(ms));
    results.push({
      audience: each.name,
      holders: expected[at],
      'median ms': round(api.median),
      'min ms': round(api.min),
      'max ms': round(api.max),
      '503 (deadline)': unavailable,
      'ran on after a 503, median ms': round(summary(overran).median),
      'SQL alone, median ms': round(summary(sqlTimes).median),
      'pages read from disk per call': Math.round(reads),
      ...(WITH_JSON ? { 'JSON scan, median ms': round(summary(jsonTimes).median) } : {}),
      [`≤ ${TARGET_MS} ms`]: unavailable === 0 && api.median <= TARGET_MS ? 'met' : 'MISSED',
    });
    const [plan] = await connection.query(withVerb('EXPLAIN', query.sql), query.params);
    explained.push({ each, query, plan });
  }

  console.log(
    `\n${RUNS} timed calls per audience after ${WARMUP} warm-up calls, one at a time; every answer checked against the generator's count`,
  );
  console.table(results);
  for (const [at, { each, query, plan }] of explained.entries()) {
    console.log(`\n--- ${each.name}: ${JSON.stringify(each.audience)}`);
    console.log(query.sql);
    printRows('EXPLAIN', plan.map(withoutPossibleKeys));
    if (at === 0) {
      const [analyzed] = await connection.query(withVerb('ANALYZE', query.sql), query.params);
      printRows('ANALYZE (run once)', analyzed.map(withoutPossibleKeys));
    }
  }
  if (NOTIFY) await notifyEach(service, pass, expected);
  const main = results[0];
  if (main === undefined) return;
  console.log(
    `\nthree-condition audience over ${HOLDERS.toLocaleString('en')} holders: ` +
      (main['503 (deadline)'] === RUNS
        ? `every call 503 (query deadline), the statement alone ${main['SQL alone, median ms']} ms`
        : `median ${main['median ms']} ms (min ${main['min ms']}, max ${main['max ms']}, ${main['503 (deadline)']} × 503)`) +
      `, ${main.holders} holders; target ≤ ${TARGET_MS} ms: ${main[`≤ ${TARGET_MS} ms`]}`,
  );
}

lib.run(main, 60 * 60_000);
