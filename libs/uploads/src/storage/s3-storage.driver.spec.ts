import { S3Client } from '@aws-sdk/client-s3';
import { UnavailableError } from '@app/core';
import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { createS3Client, S3StorageDriver, type S3Settings } from './s3-storage.driver';
import { StoredObjectNotFoundError } from './storage-driver';

interface RecordedCommand {
  name: string;
  input: Record<string, unknown>;
}

interface RecordedRequest {
  method: string;
  hostname: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

interface FakeResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/**
 * A real S3Client whose network is a fake: it records each command (name and input) and each
 * HTTP request it would send, and answers with canned responses. Nothing leaves the process.
 */
class FakeS3 {
  readonly commands: RecordedCommand[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly responses: (FakeResponse | Error)[] = [];
  readonly client: S3Client;

  constructor(settings: S3Settings) {
    this.client = createS3Client(settings, {
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake-secret' },
      requestHandler: {
        handle: (request: RecordedRequest) => {
          this.requests.push(request);
          const next = this.responses.shift() ?? { statusCode: 200 };
          if (next instanceof Error) return Promise.reject(next);
          return Promise.resolve({
            response: {
              statusCode: next.statusCode,
              headers: next.headers ?? {},
              body: Readable.from([Buffer.from(next.body ?? '')]),
            },
          });
        },
      },
    });
    this.client.middlewareStack.add(
      (next, context) => (args) => {
        this.commands.push({
          name: String(context.commandName),
          input: args.input as Record<string, unknown>,
        });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
  }
}

const SETTINGS: S3Settings = {
  endpoint: 'http://objects.test.local:9000',
  region: 'eu-west-1',
  bucketPrefix: 'wps-prod-',
};
const KEY = 'pass-assets/ws-1/upload-1/logo.png';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3StorageDriver', () => {
  // The drivers log each storage failure; these tests cause them on purpose.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  let fake: FakeS3;
  let driver: S3StorageDriver;

  beforeEach(() => {
    fake = new FakeS3(SETTINGS);
    driver = new S3StorageDriver(SETTINGS, fake.client);
  });

  it('puts into bucket <prefix><bucket> under the rest of the key, with the content type', async () => {
    const body = Buffer.from('png bytes');
    await driver.put(KEY, body, 'image/png');

    expect(fake.commands).toEqual([
      {
        name: 'PutObjectCommand',
        input: expect.objectContaining({
          Bucket: 'wps-prod-pass-assets',
          Key: 'ws-1/upload-1/logo.png',
          ContentType: 'image/png',
          ContentLength: body.length,
        }),
      },
    ]);
    // With S3_ENDPOINT the bucket is in the path (forcePathStyle), not the host name.
    const [request] = fake.requests;
    expect(request).toMatchObject({
      method: 'PUT',
      hostname: 'objects.test.local',
      path: '/wps-prod-pass-assets/ws-1/upload-1/logo.png',
    });
    expect(request.headers['content-type']).toBe('image/png');
  });

  it('gets an object as a stream with its size and content type', async () => {
    fake.responses.push({
      statusCode: 200,
      headers: { 'content-type': 'image/png', 'content-length': '5' },
      body: 'bytes',
    });
    const stored = await driver.get(KEY);
    expect(fake.commands[0]).toEqual({
      name: 'GetObjectCommand',
      input: { Bucket: 'wps-prod-pass-assets', Key: 'ws-1/upload-1/logo.png' },
    });
    expect(stored).toMatchObject({ size: 5, contentType: 'image/png' });
    expect(await readAll(stored.stream)).toEqual(Buffer.from('bytes'));
  });

  it('reports NoSuchKey as not found', async () => {
    fake.responses.push({
      statusCode: 404,
      headers: { 'content-type': 'application/xml' },
      body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
    });
    await expect(driver.get(KEY)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
  });

  it('deletes the object', async () => {
    fake.responses.push({ statusCode: 204 });
    await driver.delete(KEY);
    expect(fake.commands).toEqual([
      {
        name: 'DeleteObjectCommand',
        input: { Bucket: 'wps-prod-pass-assets', Key: 'ws-1/upload-1/logo.png' },
      },
    ]);
    expect(fake.requests[0]).toMatchObject({ method: 'DELETE' });
  });

  it('turns S3 errors and network failures into 503 UNAVAILABLE', async () => {
    fake.responses.push({
      statusCode: 503,
      headers: { 'content-type': 'application/xml' },
      body: '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>',
    });
    await expect(driver.put(KEY, Buffer.from('x'), 'image/png')).rejects.toBeInstanceOf(
      UnavailableError,
    );

    fake.responses.push(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(driver.get(KEY)).rejects.toBeInstanceOf(UnavailableError);

    fake.responses.push({
      statusCode: 403,
      headers: { 'content-type': 'application/xml' },
      body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
    });
    await expect(driver.delete(KEY)).rejects.toBeInstanceOf(UnavailableError);
  });

  it('gives an operation up after STORAGE_TIMEOUT_MS when the store does not answer (503)', async () => {
    const silent = createS3Client(
      { ...SETTINGS, timeoutMs: 50 },
      {
        credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake-secret' },
        requestHandler: {
          // A store that never answers; the try ends only when the driver's deadline aborts it.
          handle: (_request: unknown, options?: { abortSignal?: AbortSignal }) =>
            new Promise((_resolve, reject) =>
              options?.abortSignal?.addEventListener('abort', () =>
                reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
              ),
            ),
        },
      },
    );
    const timed = new S3StorageDriver({ ...SETTINGS, timeoutMs: 50 }, silent);
    const started = Date.now();
    await expect(timed.get(KEY)).rejects.toBeInstanceOf(UnavailableError);
    await expect(timed.delete(KEY)).rejects.toBeInstanceOf(UnavailableError);
    // A write gets a second more per MiB it carries: a few bytes, none.
    await expect(timed.put(KEY, Buffer.from('png'), 'image/png')).rejects.toBeInstanceOf(
      UnavailableError,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('turns a download that stalls mid-body into 503 UNAVAILABLE', async () => {
    const stalled = new Readable({ read: () => undefined });
    stalled.push(Buffer.from('first bytes'));
    // The body of this one answer stays open, as a silent store's does.
    const handler = fake.client.config.requestHandler as unknown as {
      handle: (request: RecordedRequest) => Promise<unknown>;
    };
    handler.handle = () =>
      Promise.resolve({ response: { statusCode: 200, headers: {}, body: stalled } });
    const { stream } = await driver.get(KEY);
    const reading = (async () => {
      for await (const chunk of stream) void chunk;
    })();
    stalled.destroy(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }));
    await expect(reading).rejects.toBeInstanceOf(UnavailableError);
  });

  it('presigns a GET that fixes the content type and disposition, without a request', async () => {
    const url = new URL(
      await driver.signedUrl(KEY, {
        fileName: 'logo.png',
        contentType: 'image/png',
        expiresInSeconds: 900,
      }),
    );
    expect(fake.requests).toEqual([]);
    expect(url.origin).toBe('http://objects.test.local:9000');
    expect(url.pathname).toBe('/wps-prod-pass-assets/ws-1/upload-1/logo.png');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDFAKE\/\d{8}\/eu-west-1\/s3\//);
    expect(url.searchParams.get('response-content-type')).toBe('image/png');
    expect(url.searchParams.get('response-content-disposition')).toBe(
      'inline; filename="logo.png"',
    );
  });

  it('keeps presigned lifetimes within what S3 accepts', async () => {
    const options = { fileName: 'a.csv', contentType: 'text/csv' };
    const expired = new URL(await driver.signedUrl(KEY, { ...options, expiresInSeconds: -1 }));
    expect(expired.searchParams.get('X-Amz-Expires')).toBe('1');
    expect(expired.searchParams.get('response-content-disposition')).toBe(
      'attachment; filename="a.csv"',
    );
    const long = new URL(await driver.signedUrl(KEY, { ...options, expiresInSeconds: 10 ** 7 }));
    expect(long.searchParams.get('X-Amz-Expires')).toBe(String(7 * 24 * 3600));
  });

  it('addresses buckets by host name on AWS itself (no S3_ENDPOINT)', async () => {
    const aws = new FakeS3({ region: 'eu-west-1', bucketPrefix: '' });
    await new S3StorageDriver({ region: 'eu-west-1', bucketPrefix: '' }, aws.client).put(
      KEY,
      Buffer.from('x'),
      'image/png',
    );
    expect(aws.requests[0]).toMatchObject({
      hostname: 'pass-assets.s3.eu-west-1.amazonaws.com',
      path: '/ws-1/upload-1/logo.png',
    });
  });

  it('refuses a key without a bucket part or with dot segments', async () => {
    await expect(driver.put('logo.png', Buffer.from('x'), 'image/png')).rejects.toThrow(
      'Not a valid storage key',
    );
    await expect(driver.get('pass-assets/../x')).rejects.toThrow('Not a valid storage key');
    expect(fake.commands).toEqual([]);
  });
});
