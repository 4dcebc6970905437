'use strict';
/**
 * bench:paging — 100,000 passes in one workspace (bulk INSERT through SQL, UUIDv7 ids in
 * creation order), then `GET /v1/wallet-pass?limit=20`: page 1 vs page 5,000. The page-5,000
 * cursor is found by walking the list with the cursor (4,999 requests, as a client would); the
 * two pages are then fetched alternately, BENCH_FETCHES times each, and their medians compared.
 *
 *   BENCH_PASSES (default 100000)  BENCH_PAGE (default 5000)  BENCH_FETCHES (default 200)
 */
const mysql = require('mysql2/promise');
const { newId } = require('../dist/libs/core/src/ids/ids.js');
const lib = require('./lib');

const PASSES = Number(process.env.BENCH_PASSES ?? 100_000);
const PAGE = Number(process.env.BENCH_PAGE ?? 5000);
const FETCHES = Number(process.env.BENCH_FETCHES ?? 200);
const PORT = 3102;

async function bulkInsert(dbUrl, base, apiKey) {
  const me = await lib.json(`${base}/v1/me`, { headers: { 'api-key': apiKey } });
  const connection = await mysql.createConnection(dbUrl);
  const [[user]] = await connection.query('SELECT id FROM app_user LIMIT 1');
  const [[membership]] = await connection.query(
    'SELECT workspace_id FROM workspace_membership WHERE user_id = ? ORDER BY created_time, workspace_id LIMIT 1',
    [user.id],
  );
  const workspaceId = membership.workspace_id;
  const [[account]] = await connection.query(
    'SELECT id FROM account WHERE workspace_id = ? AND is_default = true',
    [workspaceId],
  );
  const started = Date.now();
  const metadata = JSON.stringify({ description: 'Loyalty card', organizationName: 'Brand Ltd' });
  const BATCH = 5000;
  for (let offset = 0; offset < PASSES; offset += BATCH) {
    const rows = [];
    const now = new Date();
    for (let i = offset; i < Math.min(PASSES, offset + BATCH); i++) {
      rows.push([
        newId(),
        now,
        now,
        user.id,
        user.id,
        workspaceId,
        account.id,
        `Bulk ${i}`,
        `bulk ${i}`,
        metadata,
        'Draft',
        `bulk${String(i).padStart(6, '0')}`,
        '[]',
        0,
        0,
        0,
        0,
        0,
        0,
        1,
      ]);
    }
    await connection.query(
      'INSERT INTO pass (id, created_time, updated_time, created_by, updated_by, workspace_id, account_id, pass_name, name_key, pass_metadata, status, slug, upload_info_list, apple_issued_count, google_issued_count, total_issued_count, apple_active_count, google_active_count, total_active_count, version) VALUES ?',
      [rows],
    );
  }
  await connection.query('ANALYZE TABLE pass');
  const [[{ count }]] = await connection.query(
    'SELECT COUNT(*) AS count FROM pass WHERE workspace_id = ?',
    [workspaceId],
  );
  await connection.end();
  console.log(
    `inserted ${count} passes in ${((Date.now() - started) / 1000).toFixed(1)} s (workspace of ${me.email ?? 'owner'})`,
  );
}

async function fetchPage(base, apiKey, cursor) {
  const url = `${base}/v1/wallet-pass?limit=20${cursor ? `&cursor=${cursor}` : ''}`;
  let started = process.hrtime.bigint();
  let response;
  for (let attempt = 1; ; attempt++) {
    try {
      started = process.hrtime.bigint();
      response = await fetch(url, { headers: { 'api-key': apiKey } });
      break;
    } catch (error) {
      // A keep-alive socket closed under us; more than that is a real failure.
      if (attempt >= 3) throw error;
    }
  }
  const body = await response.json();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { ms, body };
}

async function main() {
  lib.printMachine();
  const service = await lib.startService('paging', PORT);
  lib.onCleanup(() => {
    if (service.proc.child.exitCode !== null) console.error(service.proc.output());
  });
  await bulkInsert(service.db.url, service.base, service.apiKey);

  const walkStarted = Date.now();
  let cursor;
  let midCursor;
  let firstOfPage;
  const MID = Math.floor(PAGE / 2);
  for (let page = 1; page < PAGE; page++) {
    const { body } = await fetchPage(service.base, service.apiKey, cursor);
    cursor = body.cursor;
    if (cursor === null) throw new Error(`the list ended at page ${page}`);
    if (page === MID - 1) midCursor = cursor;
  }
  console.log(
    `walked ${PAGE - 1} pages with the cursor in ${((Date.now() - walkStarted) / 1000).toFixed(1)} s`,
  );

  // Check the walk against OFFSET: page PAGE starts at row (PAGE-1)*20 of id DESC.
  const connection = await mysql.createConnection(service.db.url);
  const [[expected]] = await connection.query(
    `SELECT id FROM pass ORDER BY id DESC LIMIT 1 OFFSET ${(PAGE - 1) * 20}`,
  );
  await connection.end();
  firstOfPage = (await fetchPage(service.base, service.apiKey, cursor)).body.items[0].id;
  if (firstOfPage !== expected.id) throw new Error(`page ${PAGE} starts at the wrong pass`);
  console.log(`page ${PAGE} starts at row ${(PAGE - 1) * 20 + 1} (checked against OFFSET)`);

  // The middle page too: a query plan can be fine at both ends and scan in between.
  const first = [];
  const mid = [];
  const deep = [];
  for (let i = 0; i < 20; i++) {
    await fetchPage(service.base, service.apiKey);
    await fetchPage(service.base, service.apiKey, midCursor);
    await fetchPage(service.base, service.apiKey, cursor);
  }
  for (let i = 0; i < FETCHES; i++) {
    first.push((await fetchPage(service.base, service.apiKey)).ms);
    mid.push((await fetchPage(service.base, service.apiKey, midCursor)).ms);
    deep.push((await fetchPage(service.base, service.apiKey, cursor)).ms);
  }
  first.sort((a, b) => a - b);
  mid.sort((a, b) => a - b);
  deep.sort((a, b) => a - b);
  const p = (list, q) => lib.percentile(list, q).toFixed(2);
  const ratio = lib.percentile(deep, 50) / lib.percentile(first, 50);
  console.log(`\n| page | fetches | p50 ms | p99 ms |`);
  console.log('|---|---|---|---|');
  console.log(`| 1 | ${FETCHES} | ${p(first, 50)} | ${p(first, 99)} |`);
  console.log(`| ${MID} | ${FETCHES} | ${p(mid, 50)} | ${p(mid, 99)} |`);
  console.log(`| ${PAGE} | ${FETCHES} | ${p(deep, 50)} | ${p(deep, 99)} |`);
  console.log(
    `\npage ${PAGE} / page 1 (p50): ${ratio.toFixed(2)}× (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'MISSED'}); page ${MID} / page 1: ${(lib.percentile(mid, 50) / lib.percentile(first, 50)).toFixed(2)}×`,
  );
}

lib.run(main, 15 * 60_000);
