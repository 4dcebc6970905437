'use strict';
/**
 * bench:holders — `POST /v1/wallet-pass/{id}/holders/import` (target: 10,000 holders in
 * ≤ 10 s). On the built service and a fresh MariaDB database, one request at a time:
 *
 *   1. 10,000 new holders as JSON (all inserts),
 *   2. the same 10,000 again with new field values (all updates),
 *   3. 10,000 new holders as a multipart CSV file on a second pass,
 *   4. BENCH_TOTAL (default 100,000) holders as consecutive 10,000-row imports on a third
 *      pass, to see that an import does not slow down as the table grows.
 *
 * Wall time of each request as the client sees it (JSON/CSV building not included).
 *
 * BENCH_WALLET_B=1 runs the service with WalletB configured (a service account with a fresh
 * RSA key; Google itself is never called, since the bench runs no worker), so each holder's
 * `googleSaveUrl` and event are made as in production.
 */
const { generateKeyPairSync } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const lib = require('./lib');

const PORT = Number(process.env.BENCH_PORT ?? 3140);
const ROWS = 10_000;
const TOTAL = Number(process.env.BENCH_TOTAL ?? 100_000);
const WALLET_B = process.env.BENCH_WALLET_B === '1';

/** WalletB settings with a throw-away service account (its key file in a temp dir). */
function walletBEnv() {
  const dir = mkdtempSync(join(os.tmpdir(), 'wps-bench-wallet-b-'));
  lib.onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const path = join(dir, 'service-account.json');
  writeFileSync(
    path,
    JSON.stringify({
      type: 'service_account',
      private_key_id: 'bench',
      private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      client_email: 'bench@bench.iam.gserviceaccount.com',
      token_uri: 'http://127.0.0.1:9/token',
    }),
  );
  return {
    WALLET_B_ISSUER_ID: '3388000000012345678',
    WALLET_B_SERVICE_ACCOUNT: path,
    WALLET_B_API_URL: 'http://127.0.0.1:9',
  };
}

async function send(url, token, body, contentType) {
  const started = process.hrtime.bigint();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(contentType ? { 'content-type': contentType } : {}),
    },
    body,
  });
  const text = await response.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text.slice(0, 500)}`);
  return { ms, answer: JSON.parse(text) };
}

async function main() {
  lib.printMachine();
  console.log(`WalletB: ${WALLET_B ? 'configured (BENCH_WALLET_B=1)' : 'not configured'}`);
  const service = await lib.startService('holders', PORT, WALLET_B ? walletBEnv() : {});
  const auth = { authorization: `Bearer ${service.token}` };
  const uploadInfoList = await lib.uploadPassImages(service.base, auth);
  let passes = 0;
  const createPass = () =>
    lib.json(`${service.base}/v1/wallet-pass`, {
      method: 'POST',
      headers: auth,
      body: {
        passName: `Holders bench ${++passes}`,
        status: 'Published',
        passMetadata: {
          description: 'Loyalty card',
          organizationName: 'Brand Ltd',
          topField: { key: 'points', label: 'Points', value: '0' },
          secondaryFields: [{ key: 'name', label: 'Name', value: '' }],
          qrUrl: 'https://brand.example/member',
        },
        uploadInfoList,
      },
    });
  const rows = (prefix, from, points) =>
    Array.from({ length: ROWS }, (_, i) => ({
      externalId: `${prefix}-${from + i}`,
      fieldValues: { points: String(points + i), name: `Member ${from + i}` },
      barcodeValue: `https://brand.example/member/${from + i}`,
    }));
  const importUrl = (pass) => `${service.base}/v1/wallet-pass/${pass.id}/holders/import`;
  const results = [];

  const pass = await createPass();
  const inserted = await send(
    importUrl(pass),
    service.token,
    JSON.stringify(rows('m', 0, 0)),
    'application/json',
  );
  results.push({ case: '10,000 new (JSON)', ms: inserted.ms, ...inserted.answer });
  const sample = await lib.json(`${service.base}/v1/wallet-pass/${pass.id}/holders?limit=1`, {
    headers: auth,
  });
  if ((sample.items[0].googleSaveUrl !== null) !== WALLET_B) {
    throw new Error(`googleSaveUrl ${sample.items[0].googleSaveUrl} with WalletB=${WALLET_B}`);
  }
  const updated = await send(
    importUrl(pass),
    service.token,
    JSON.stringify(rows('m', 0, 500)),
    'application/json',
  );
  results.push({ case: '10,000 updated (JSON)', ms: updated.ms, ...updated.answer });

  const csvPass = await createPass();
  const csv =
    'externalId,barcodeValue,barcodeText,points,name\n' +
    rows('c', 0, 0)
      .map(
        (r) => `${r.externalId},${r.barcodeValue},,${r.fieldValues.points},${r.fieldValues.name}`,
      )
      .join('\n') +
    '\n';
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'holders.csv');
  const csvResult = await send(importUrl(csvPass), service.token, form);
  results.push({ case: '10,000 new (CSV)', ms: csvResult.ms, ...csvResult.answer });

  const bigPass = await createPass();
  const rounds = [];
  for (let from = 0; from < TOTAL; from += ROWS) {
    const round = await send(
      importUrl(bigPass),
      service.token,
      JSON.stringify(rows('b', from, 0)),
      'application/json',
    );
    rounds.push(round.ms);
  }
  const total = rounds.reduce((a, b) => a + b, 0);
  results.push({
    case: `${TOTAL.toLocaleString('en')} new (${rounds.length} × 10,000 JSON)`,
    ms: total,
    created: TOTAL,
    updated: 0,
  });
  console.table(results.map((r) => ({ ...r, ms: Math.round(r.ms) })));
  console.log(
    `per 10,000-row import of the ${TOTAL.toLocaleString('en')}: first ${Math.round(rounds[0])} ms, ` +
      `last ${Math.round(rounds[rounds.length - 1])} ms, worst ${Math.round(Math.max(...rounds))} ms`,
  );
}

lib.run(main, 10 * 60_000);
