import { loadConfig } from '@app/core';
import { Logger } from '@nestjs/common';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApnsClient } from './apns-client.factory';

describe('createApnsClient', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apns-factory-'));
  const keyPath = join(dir, 'AuthKey_ABC123DEFG.p8');
  const signing = { certPem: 'CERT', keyPem: 'KEY' };
  const logger = new Logger('test');

  beforeAll(() => {
    Logger.overrideLogger(false);
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    writeFileSync(keyPath, privateKey);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    Logger.overrideLogger(new Logger());
  });

  it('uses token auth when WALLET_A_APNS_KEY and WALLET_A_APNS_KEY_ID are set', async () => {
    const config = loadConfig({
      WALLET_A_APNS_KEY: keyPath,
      WALLET_A_APNS_KEY_ID: 'ABC123DEFG',
      WALLET_A_PASS_TYPE_ID: 'pass.com.example.test',
    });
    const client = createApnsClient(config, signing, logger);
    expect(client.authKind).toBe('token');
    await client.close();
  });

  it('uses the pass certificate otherwise', async () => {
    const client = createApnsClient(loadConfig({}), signing, logger);
    expect(client.authKind).toBe('certificate');
    await client.close();
  });

  it('fails pushes at once, with a reason, when only the development certificate is there', async () => {
    const client = createApnsClient(loadConfig({}), { ...signing, development: true }, logger);
    expect(client.authKind).toBe('unavailable');
    expect(await client.send('ab'.repeat(32))).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/^NoApnsCredentials/),
    });
    await client.close();
  });

  it('still uses the development certificate against a cleartext test server', async () => {
    const config = loadConfig({ WALLET_A_APNS_URL: 'http://127.0.0.1:1' });
    const client = createApnsClient(config, { ...signing, development: true }, logger);
    expect(client.authKind).toBe('certificate');
    await client.close();
  });

  it('says which file it could not read', () => {
    const config = loadConfig({
      WALLET_A_APNS_KEY: join(dir, 'missing.p8'),
      WALLET_A_APNS_KEY_ID: 'ABC123DEFG',
    });
    expect(() => createApnsClient(config, signing, logger)).toThrow(
      /WALLET_A_APNS_KEY.*missing\.p8/,
    );
  });
});
