import { UnavailableError } from '@app/core';
import { Logger } from '@nestjs/common';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FileUrlSigner } from './file-url-signer';
import { LocalStorageDriver } from './local-storage.driver';
import { StoredObjectNotFoundError } from './storage-driver';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const KEY = 'pass-assets/ws-1/upload-1/logo.png';

describe('LocalStorageDriver', () => {
  // The drivers log each storage failure; these tests cause them on purpose.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  let root: string;
  let driver: LocalStorageDriver;
  const signer = new FileUrlSigner('s'.repeat(32), 'http://localhost:3000');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wps-local-driver-'));
    driver = new LocalStorageDriver(root, signer);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('stores a file under <dir>/<key> and reads it back with its content type', async () => {
    const body = Buffer.from('the bytes');
    await driver.put(KEY, body, 'image/png');
    const stored = await driver.get(KEY);
    expect(stored.size).toBe(body.length);
    expect(stored.contentType).toBe('image/png');
    expect(await readAll(stored.stream)).toEqual(body);
    expect(readdirSync(join(root, 'pass-assets/ws-1/upload-1')).sort()).toEqual([
      '.logo.png.meta.json',
      'logo.png',
    ]);
  });

  it('replaces a file whole and leaves no temporary files', async () => {
    await driver.put(KEY, Buffer.from('first version'), 'image/png');
    await driver.put(KEY, Buffer.from('second'), 'text/csv');
    const stored = await driver.get(KEY);
    expect(await readAll(stored.stream)).toEqual(Buffer.from('second'));
    expect(stored.contentType).toBe('text/csv');
    const names = readdirSync(join(root, 'pass-assets/ws-1/upload-1'));
    expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reports a missing file as not found', async () => {
    await expect(driver.get(KEY)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    await driver.put(KEY, Buffer.from('x'), 'image/png');
    await expect(driver.get('pass-assets/ws-1/upload-1')).rejects.toBeInstanceOf(
      StoredObjectNotFoundError,
    );
  });

  it('deletes the file, its metadata and its empty directory; a second delete is fine', async () => {
    await driver.put(KEY, Buffer.from('x'), 'image/png');
    await driver.delete(KEY);
    await expect(driver.get(KEY)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    expect(readdirSync(join(root, 'pass-assets/ws-1'))).toEqual([]);
    await expect(driver.delete(KEY)).resolves.toBeUndefined();
  });

  it.each([
    '../outside.png',
    'pass-assets/../../outside.png',
    'pass-assets/ws-1/../../../etc/passwd',
    '/etc/passwd',
    'pass-assets//logo.png',
    'pass-assets/.hidden',
    'pass-assets/ws-1/./logo.png',
    'pass-assets\\..\\..\\x',
    'logo.png',
  ])('never lets the key %j reach outside the root', async (key) => {
    await expect(driver.put(key, Buffer.from('x'), 'image/png')).rejects.toThrow(
      'Not a valid storage key',
    );
    await expect(driver.get(key)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    await expect(driver.delete(key)).rejects.toThrow('Not a valid storage key');
    await expect(
      driver.signedUrl(key, { fileName: 'x', contentType: 'x', expiresInSeconds: 1 }),
    ).rejects.toThrow('Not a valid storage key');
  });

  it('turns a storage failure into 503 UNAVAILABLE', async () => {
    const file = join(root, 'not-a-directory');
    writeFileSync(file, 'x');
    const broken = new LocalStorageDriver(file, signer);
    await expect(broken.put(KEY, Buffer.from('x'), 'image/png')).rejects.toBeInstanceOf(
      UnavailableError,
    );
    await expect(broken.put(KEY, Buffer.from('x'), 'image/png')).rejects.toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
    });
  });

  it('hands out signed /files URLs', async () => {
    const url = await driver.signedUrl(KEY, {
      fileName: 'logo.png',
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    expect(url).toMatch(
      /^http:\/\/localhost:3000\/files\/pass-assets\/ws-1\/upload-1\/logo\.png\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
  });
});
