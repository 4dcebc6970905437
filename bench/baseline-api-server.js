'use strict';
/**
 * The baseline of `bench:api`: a bare Express + mysql2 server doing by hand what the service
 * does for `GET /v1/wallet-pass` and `POST /v1/wallet-pass` with an `api-key` header. The SQL
 * is the SQL the service sends (read off MariaDB's general log): the key joined with its user
 * and workspace memberships in one query, compare the SHA-256 of the secret (and touch
 * `last_used_time` at most once a minute), then list (one query, the account's name joined) or
 * insert (default account, then one INSERT: a draft without back-field values needs no
 * transaction), and return the same JSON.
 * No validation library, no DI, no ORM: the floor the framework is measured against.
 * Beside that SQL it does only the per-request work an operator needs from the service, as the
 * service does it: one access-log line through pino with the service's options (LOG_LEVEL,
 * default info) and one sample of the same prom-client histogram
 * (`http_request_duration_seconds` by method and route, the same buckets).
 *
 *   BASELINE_PORT, DB_URL, PUBLIC_BASE_URL
 */
const express = require('express');
const mysql = require('mysql2/promise');
const { createHash, timingSafeEqual } = require('node:crypto');
const { newId } = require('../dist/libs/core/src/ids/ids.js');
const { randomSlug } = require('../dist/libs/passes/src/pass-content.js');
const { observe } = require('./baseline-observe');

const port = Number(process.env.BASELINE_PORT ?? 3101);
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`;
const pool = mysql.createPool({ uri: process.env.DB_URL, connectionLimit: 10, timezone: 'Z' });
const KEY =
  /^wpk\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;
const WRITE_ROLES = new Set(['owner', 'admin', 'member']);

const PASS_COLUMNS = [
  'id',
  'created_time',
  'updated_time',
  'created_by',
  'updated_by',
  'workspace_id',
  'account_id',
  'pass_name',
  'name_key',
  'pass_metadata',
  'notification_header',
  'status',
  'slug',
  'upload_info_list',
  'apple_issued_count',
  'google_issued_count',
  'total_issued_count',
  'apple_active_count',
  'google_active_count',
  'total_active_count',
  'version',
  'wallet_a_token_hash',
  'wallet_a_token',
  'wallet_a_message',
  'deleted_time',
];
const PASS_SELECT = PASS_COLUMNS.map((c) => `p.${c} AS p_${c}`).join(', ');

async function principal(connection, header) {
  const match = typeof header === 'string' ? KEY.exec(header.trim()) : null;
  if (match === null) return null;
  const [rows] = await connection.query(
    'SELECT k.id AS key_id, k.secret_hash, k.last_used_time, u.id AS user_id, u.organisation_id, u.role, u.email, m.workspace_id FROM api_key k JOIN app_user u ON u.id = k.user_id AND u.removed_time IS NULL LEFT JOIN workspace_membership m ON m.user_id = u.id WHERE k.id = ? AND k.revoked_time IS NULL ORDER BY m.created_time ASC, m.workspace_id ASC',
    [match[1]],
  );
  const key = rows[0];
  if (key === undefined) return null;
  const actual = createHash('sha256').update(match[2]).digest();
  const expected = Buffer.from(key.secret_hash, 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  const now = Date.now();
  if (key.last_used_time === null || now - key.last_used_time.getTime() > 60_000) {
    await connection.query('UPDATE `api_key` SET `last_used_time` = ? WHERE `id` = ?', [
      new Date(now),
      key.key_id,
    ]);
  }
  return {
    keyId: key.key_id,
    userId: key.user_id,
    role: key.role,
    workspaceIds: rows.filter((row) => row.workspace_id !== null).map((row) => row.workspace_id),
  };
}

function parseJson(value) {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function passJson(row, account) {
  return {
    id: row.p_id,
    passName: row.p_pass_name,
    status: row.p_status,
    appleIssuedCount: row.p_apple_issued_count,
    googleIssuedCount: row.p_google_issued_count,
    totalIssuedCount: row.p_total_issued_count,
    appleActiveCount: row.p_apple_active_count,
    googleActiveCount: row.p_google_active_count,
    totalActiveCount: row.p_total_active_count,
    passMetadata: parseJson(row.p_pass_metadata),
    notificationHeader: row.p_notification_header,
    uploadInfoList: parseJson(row.p_upload_info_list).map((info) => ({ ...info })),
    account: { id: account.id, name: account.name },
    accountId: row.p_account_id,
    slug: row.p_slug,
    downloadUrl: `${publicBaseUrl}/p/${row.p_slug}`,
    googleSaveUrl: null,
    workspaceId: row.p_workspace_id,
    createdTime: row.p_created_time.toISOString(),
    updatedTime: row.p_updated_time.toISOString(),
    createdBy: row.p_created_by,
    updatedBy: row.p_updated_by,
  };
}

function fail(res, status, message) {
  res.status(status).json({ error: { message } });
}

const app = express();
app.disable('x-powered-by');
app.use(observe);
app.use(express.json({ limit: '15mb' }));

app.get('/v1/wallet-pass', async (req, res) => {
  const connection = await pool.getConnection();
  try {
    const who = await principal(connection, req.headers['api-key']);
    if (who === null) return fail(res, 403, 'Invalid API key');
    req.userId = who.userId;
    req.apiKeyId = who.keyId;
    const workspaceId = who.workspaceIds[0];
    const limit = Math.min(20, Math.max(1, Number(req.query.limit ?? 20) || 20));
    const params = [workspaceId];
    let where = 'p.workspace_id = ? AND p.deleted_time IS NULL';
    if (typeof req.query.cursor === 'string') {
      where += ' AND p.id < ?';
      params.push(JSON.parse(Buffer.from(req.query.cursor, 'base64url').toString('utf8')).after);
    }
    const [rows] = await connection.query(
      `SELECT ${PASS_SELECT}, a.name AS account_name FROM pass p FORCE INDEX (ix_pass_workspace) LEFT JOIN account a ON a.id = p.account_id AND a.workspace_id = p.workspace_id WHERE ${where} ORDER BY p.id DESC LIMIT ${limit + 1}`,
      params,
    );
    const hasMore = rows.length > limit;
    const items = hasMore ? rows.slice(0, limit) : rows;
    const last = items[items.length - 1];
    res.json({
      items: items.map((row) =>
        passJson(row, { id: row.p_account_id, name: row.account_name ?? '' }),
      ),
      hasMore,
      cursor: hasMore
        ? Buffer.from(JSON.stringify({ after: last.p_id })).toString('base64url')
        : null,
    });
  } catch (error) {
    fail(res, 500, String(error));
  } finally {
    connection.release();
  }
});

app.post('/v1/wallet-pass', async (req, res) => {
  const connection = await pool.getConnection();
  try {
    const who = await principal(connection, req.headers['api-key']);
    if (who === null) return fail(res, 403, 'Invalid API key');
    req.userId = who.userId;
    req.apiKeyId = who.keyId;
    if (!WRITE_ROLES.has(who.role)) return fail(res, 403, 'Role');
    const body = req.body;
    if (typeof body?.passName !== 'string' || typeof body.passMetadata !== 'object') {
      return fail(res, 400, 'Invalid input');
    }
    const workspaceId = who.workspaceIds[0];
    const [accounts] = await connection.query(
      'SELECT a.`id` AS a_id, a.`created_time` AS a_created_time, a.`updated_time` AS a_updated_time, a.`created_by` AS a_created_by, a.`updated_by` AS a_updated_by, a.`workspace_id` AS a_workspace_id, a.`name` AS a_name, a.`is_default` AS a_is_default FROM account a WHERE a.workspace_id = ? AND a.is_default = 1 ORDER BY a.id ASC LIMIT 1',
      [workspaceId],
    );
    const account = { id: accounts[0].a_id, name: accounts[0].a_name };
    const now = new Date();
    const id = newId();
    const values = {
      id,
      created_time: now,
      updated_time: now,
      created_by: who.userId,
      updated_by: who.userId,
      workspace_id: workspaceId,
      account_id: account.id,
      pass_name: body.passName,
      name_key: body.passName.toLowerCase(),
      pass_metadata: JSON.stringify(body.passMetadata),
      notification_header: body.notificationHeader ?? null,
      status: body.status ?? 'Draft',
      slug: randomSlug(),
      upload_info_list: '[]',
      apple_issued_count: 0,
      google_issued_count: 0,
      total_issued_count: 0,
      apple_active_count: 0,
      google_active_count: 0,
      total_active_count: 0,
      version: 1,
      wallet_a_token_hash: null,
      wallet_a_token: null,
      wallet_a_message: null,
      deleted_time: null,
    };
    // A draft without back-field values is one INSERT, as in the service (no transaction).
    try {
      await connection.query(
        `INSERT INTO \`pass\`(${PASS_COLUMNS.map((c) => `\`${c}\``).join(', ')}) VALUES (?)`,
        [PASS_COLUMNS.map((c) => values[c])],
      );
    } catch (error) {
      if (error?.code === 'ER_DUP_ENTRY') return fail(res, 409, 'Conflict');
      throw error;
    }
    const row = Object.fromEntries(PASS_COLUMNS.map((c) => [`p_${c}`, values[c]]));
    res.status(201).json(passJson(row, account));
  } catch (error) {
    fail(res, 500, String(error));
  } finally {
    connection.release();
  }
});

const server = app.listen(port, '127.0.0.1');
app.get('/health', (_req, res) => res.json({ status: 'ok' }));
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
