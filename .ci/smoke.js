'use strict';
/**
 * Starts the built service (`dist/`, as `npm start` runs it) on SQLite in a temporary directory,
 * on the Node.js that runs this script, and uses it as a reader of the README would: health,
 * sign-in, an API key, SMOKE_PASSES passes created and listed (default 300), the OpenAPI
 * document. Then it checks that the process is still up and stops it. Exits non-zero on any
 * failure, with the service's output.
 *   node .ci/smoke.js   (after `npm run build`)
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const PASSES = Number(process.env.SMOKE_PASSES ?? 300);
const ROOT = join(__dirname, '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'wps-smoke-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const password = `Smoke-${Date.now()}-Password!`;
  const env = {
    ...process.env,
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    DB_TYPE: 'sqlite',
    DB_PATH: join(dir, 'wallet.sqlite'),
    STORAGE_DIR: join(dir, 'uploads'),
    WALLET_A_DEV_CERT_DIR: join(dir, 'wallet-a'),
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: password,
    // The passes come from one key, faster than a caller's default allowance.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_USER_PER_MINUTE: '1000000',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
  };
  let output = '';
  const service = spawn(process.execPath, ['dist/apps/api/src/main.js'], { cwd: ROOT, env });
  service.stdout.on('data', (chunk) => (output += chunk));
  service.stderr.on('data', (chunk) => (output += chunk));
  let exit = null;
  const exited = new Promise((resolve) =>
    service.once('exit', (code, signal) => resolve((exit = { code, signal }))),
  );

  const call = async (method, path, { body, headers = {}, expect = 200 } = {}) => {
    if (exit) throw new Error(`the service exited (${JSON.stringify(exit)})`);
    const response = await fetch(base + path, {
      method,
      headers: body ? { 'content-type': 'application/json', ...headers } : headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status !== expect) {
      throw new Error(`${method} ${path}: ${response.status} (expected ${expect}) ${text}`);
    }
    return text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  };

  try {
    const started = Date.now();
    for (;;) {
      try {
        await call('GET', '/health');
        break;
      } catch (error) {
        if (exit || Date.now() - started > 60_000) throw error;
        await sleep(250);
      }
    }
    const { accessToken } = await call('POST', '/v1/auth/login', {
      body: { email: 'admin@example.com', password },
    });
    const auth = { Authorization: `Bearer ${accessToken}` };
    const { key } = await call('POST', '/v1/api-keys', {
      headers: auth,
      body: { name: 'smoke' },
      expect: 201,
    });
    const apiKey = { 'api-key': key };
    // Four clients at a time, each creating a pass and reading a page of them.
    let created = 0;
    const client = async () => {
      while (created < PASSES) {
        created++;
        await call('POST', '/v1/wallet-pass', {
          headers: apiKey,
          body: {
            passName: `Smoke ${created}`,
            passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
          },
          expect: 201,
        });
        await call('GET', '/v1/wallet-pass?limit=20', { headers: apiKey });
      }
    };
    await Promise.all([client(), client(), client(), client()]);
    const page = await call('GET', '/v1/wallet-pass?limit=1', { headers: apiKey });
    if (!Array.isArray(page.items) || page.items.length !== 1) {
      throw new Error(`the pass list: ${JSON.stringify(page).slice(0, 300)}`);
    }
    await call('GET', '/docs-json');
    // Time for the garbage collector to finalize what the requests left behind.
    await sleep(3000);
    await call('GET', '/health');
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `smoke: the built service on Node.js ${process.version} (SQLite) answered sign-in, ` +
        `${PASSES} passes created and ${PASSES} lists in ${seconds} s, and is still up`,
    );
  } catch (error) {
    process.stderr.write(`${output}\nsmoke failed on Node.js ${process.version}: ${error.stack}\n`);
    process.exitCode = 1;
  } finally {
    if (!exit) service.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (!exit) service.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
