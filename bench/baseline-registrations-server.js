'use strict';
/**
 * The baseline of `bench:registrations` on MariaDB: a bare Express + mysql2 server that answers
 * PassKit's device registration (`POST /passkit/v1/devices/{device}/registrations/{passTypeId}/
 * {serial}`, body `{"pushToken": …}`) with one INSERT of the registration row per request: the
 * SQL the service sends for a registration, TypeORM's INSERT of `wallet_a_registration` with
 * every column (read off `getQueryAndParameters()` of the service's entity), one row per
 * statement. Nothing else of the service's turn: no authentication token check, no pass row
 * lock, no look-up of known devices or of a source's active ones, no counters, no events, no
 * transaction. Beside it only the per-request work an operator needs, as in bench:api's
 * baseline: one pino access-log line with the service's options and one sample of the same
 * prom-client histogram. The floor the service's registrations are measured against.
 *
 *   BASELINE_PORT, DB_URL, BASELINE_PASS_ID (the pass whose serial number the rows carry: not the
 *   one the service is measured on, so that the service's per-source counts see none of them)
 */
const express = require('express');
const mysql = require('mysql2/promise');
const { newId } = require('../dist/libs/core/src/ids/ids.js');
const { observe } = require('./baseline-observe');

const port = Number(process.env.BASELINE_PORT ?? 3160);
const passId = process.env.BASELINE_PASS_ID;
if (passId === undefined) throw new Error('BASELINE_PASS_ID is required');
const pool = mysql.createPool({ uri: process.env.DB_URL, connectionLimit: 10, timezone: 'Z' });

/** The statement the service's `manager.insert(Registration, …)` sends for one row on MariaDB. */
const INSERT =
  'INSERT INTO `wallet_a_registration`(`id`, `workspace_id`, `pass_id`, `holder_id`, ' +
  '`serial_number`, `device_library_id`, `push_token`, `source`, `held_pass_version`, ' +
  '`held_holder_version`, `created_time`, `updated_time`, `removed_time`) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

async function main() {
  // The pass's workspace and version, read once: the service has them from its own look-ups.
  const [[pass]] = await pool.query('SELECT workspace_id, version FROM pass WHERE id = ?', [
    passId,
  ]);
  if (pass === undefined) throw new Error(`No pass ${passId}`);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 1);
  app.use(observe);
  app.use(express.json());
  app.post('/passkit/v1/devices/:device/registrations/:passTypeId/:serial', async (req, res) => {
    const pushToken = req.body?.pushToken;
    if (typeof pushToken !== 'string' || pushToken === '') {
      res.status(400).end();
      return;
    }
    const now = new Date();
    try {
      await pool.query(INSERT, [
        newId(),
        pass.workspace_id,
        passId,
        null,
        passId,
        req.params.device,
        pushToken,
        req.ip ?? null,
        pass.version,
        0,
        now,
        now,
        null,
      ]);
      res.status(201).end();
    } catch (error) {
      res.status(error?.code === 'ER_DUP_ENTRY' ? 200 : 500).end();
    }
  });
  app.get('/health', (_req, res) => res.json({ status: 'ok' }));
  const server = app.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close();
    void pool.end();
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
