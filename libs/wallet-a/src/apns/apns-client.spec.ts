import { Logger } from '@nestjs/common';
import { ApnsClient } from './apns-client';
import type { ApnsClientOptions } from './apns.types';

const base: ApnsClientOptions = {
  // Nothing listens here; the tests below must finish without connecting.
  url: 'http://127.0.0.1:1',
  topic: 'pass.com.example.test',
  auth: { kind: 'certificate', certPem: 'CERT', keyPem: 'KEY' },
};

describe('ApnsClient', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  it('refuses options it cannot work with', () => {
    expect(() => new ApnsClient({ ...base, url: 'ftp://x' })).toThrow(/https/);
    expect(() => new ApnsClient({ ...base, topic: ' ' })).toThrow(/topic/);
    expect(() => new ApnsClient({ ...base, connections: 0 })).toThrow(/connections/);
    expect(() => new ApnsClient({ ...base, maxConcurrentStreams: 1.5 })).toThrow(
      /maxConcurrentStreams/,
    );
    expect(() => new ApnsClient({ ...base, retry: { attempts: 0 } })).toThrow(/attempts/);
  });

  it('answers without a network call for a malformed token, an oversized payload or no credentials', async () => {
    const client = new ApnsClient(base);
    expect(await client.send('not-a-token')).toEqual({
      status: 'unregistered',
      reason: 'BadDeviceToken',
    });
    expect(await client.send('ab'.repeat(32), { payload: { big: 'x'.repeat(4096) } })).toEqual({
      status: 'failed',
      reason: 'PayloadTooLarge',
    });
    const unavailable = new ApnsClient({ ...base, auth: { kind: 'unavailable', reason: 'Nope' } });
    expect(await unavailable.send('ab'.repeat(32))).toEqual({ status: 'failed', reason: 'Nope' });
    await Promise.all([client.close(), unavailable.close()]);
  });

  it('offers one connection’s streams times the pool size as default concurrency', () => {
    expect(new ApnsClient(base).concurrency).toBe(500);
    expect(new ApnsClient({ ...base, connections: 3, maxConcurrentStreams: 100 }).concurrency).toBe(
      300,
    );
  });

  it('yields nothing for no tokens and refuses a concurrency below 1', async () => {
    const client = new ApnsClient(base);
    expect(await client.sendMany([])).toEqual(new Map());
    await expect(client.sendEach(['ab'.repeat(32)], {}, 0).next()).rejects.toThrow(/concurrency/);
  });
});
