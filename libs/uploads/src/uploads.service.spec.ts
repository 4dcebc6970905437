import { loadConfig, UnavailableError, type AppConfig } from '@app/core';
import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Repository } from 'typeorm';
import {
  StoredObjectNotFoundError,
  type SignedUrlOptions,
  type StorageDriver,
  type StoredObject,
} from './storage/storage-driver';
import { Upload } from './upload.entity';
import { UploadsService } from './uploads.service';

/** A PNG's signature and the IHDR chunk of a 1×1 RGBA image: enough for the checks here. */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR', 'latin1'),
  Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]),
  Buffer.alloc(4), // CRC: not checked
]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);

class MemoryStorage implements StorageDriver {
  readonly objects = new Map<string, { body: Buffer; contentType: string }>();
  failNextPut = false;

  put(key: string, body: Buffer, contentType: string): Promise<void> {
    if (this.failNextPut)
      return Promise.reject(new UnavailableError('File storage is unavailable'));
    this.objects.set(key, { body, contentType });
    return Promise.resolve();
  }
  get(key: string): Promise<StoredObject> {
    const object = this.objects.get(key);
    if (object === undefined) return Promise.reject(new StoredObjectNotFoundError(key));
    return Promise.resolve({
      stream: Readable.from([object.body]),
      size: object.body.length,
      contentType: object.contentType,
    });
  }
  delete(key: string): Promise<void> {
    this.objects.delete(key);
    return Promise.resolve();
  }
  signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    return Promise.resolve(`signed:${key}:${options.fileName}:${options.expiresInSeconds}`);
  }
}

/** The part of a TypeORM repository the service uses, kept in memory. */
class MemoryRepository {
  readonly rows: Upload[] = [];
  failNextInsert: Error | undefined;
  readonly lookups: unknown[] = [];

  create(fields: Partial<Upload>): Upload {
    return Object.assign(new Upload(), fields);
  }
  sum(column: 'size', where: { workspaceId: string }): Promise<number | null> {
    const rows = this.rows.filter((row) => row.workspaceId === where.workspaceId);
    return Promise.resolve(rows.length === 0 ? null : rows.reduce((t, r) => t + r[column], 0));
  }
  insert(upload: Upload): Promise<void> {
    const failure = this.failNextInsert;
    this.failNextInsert = undefined;
    if (failure) return Promise.reject(failure);
    this.rows.push(upload);
    return Promise.resolve();
  }
  findOneBy(where: { workspaceId: string; id: string }): Promise<Upload | null> {
    this.lookups.push(where);
    return Promise.resolve(
      this.rows.find((row) => row.workspaceId === where.workspaceId && row.id === where.id) ?? null,
    );
  }
}

describe('UploadsService', () => {
  let config: AppConfig;
  let storage: MemoryStorage;
  let repository: MemoryRepository;
  let service: UploadsService;

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  beforeEach(() => {
    config = loadConfig({ UPLOAD_MAX_BYTES: '100', JWT_SECRET: 'x'.repeat(32) });
    storage = new MemoryStorage();
    repository = new MemoryRepository();
    service = new UploadsService(repository as unknown as Repository<Upload>, storage, config);
  });

  it('stores the bytes under <bucket>/<workspace>/<id>/<name> and records them', async () => {
    const upload = await service.upload('ws-1', 'user-1', { body: PNG, fileName: 'my logo.png' });
    expect(upload).toMatchObject({
      workspaceId: 'ws-1',
      bucket: 'pass-assets',
      fileName: 'my_logo.png',
      contentType: 'image/png',
      size: PNG.length,
      sha256: createHash('sha256').update(PNG).digest('hex'),
      createdBy: 'user-1',
      storageKey: `pass-assets/ws-1/${upload.id}/my_logo.png`,
    });
    expect(repository.rows).toEqual([upload]);
    expect(storage.objects.get(upload.storageKey)).toEqual({ body: PNG, contentType: 'image/png' });
  });

  it('removes the stored file when the record cannot be saved', async () => {
    const failure = new Error('insert failed');
    repository.failNextInsert = failure;
    await expect(service.upload('ws-1', 'user-1', { body: PNG, fileName: 'a.png' })).rejects.toBe(
      failure,
    );
    expect(storage.objects.size).toBe(0);
    expect(repository.rows).toEqual([]);
  });

  it('saves no record when the file cannot be stored', async () => {
    storage.failNextPut = true;
    await expect(
      service.upload('ws-1', 'user-1', { body: PNG, fileName: 'a.png' }),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(repository.rows).toEqual([]);
  });

  it('refuses a bucket outside UPLOAD_BUCKETS before anything else', async () => {
    await expect(
      service.upload('ws-1', 'user-1', { body: Buffer.alloc(500), fileName: 'a', bucket: 'x' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      context: { bucket: 'must be one of pass-assets, campaign-assets' },
    });
  });

  it('refuses a file over UPLOAD_MAX_BYTES with 413, and an empty one with 400', async () => {
    await expect(
      service.upload('ws-1', 'u', { body: Buffer.alloc(101), fileName: 'a.png' }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', context: { limitBytes: 100 } });
    await expect(
      service.upload('ws-1', 'u', { body: Buffer.alloc(0), fileName: 'a.png' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { file: 'must not be empty' } });
    expect(storage.objects.size).toBe(0);
  });

  it('takes only PNG into pass-assets, whatever the name says', async () => {
    await expect(
      service.upload('ws-1', 'u', { body: JPEG, fileName: 'logo.png' }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      status: 415,
      context: { bucket: 'pass-assets', contentType: 'image/jpeg' },
    });
  });

  it('takes into pass-assets only PNGs that could be pass images', async () => {
    const service = new UploadsService(
      repository as unknown as Repository<Upload>,
      storage,
      loadConfig({ UPLOAD_MAX_BYTES: String(1024 * 1024), JWT_SECRET: 'x'.repeat(32) }),
    );
    const withHeader = (width: number, height: number, extra: number) => {
      const png = Buffer.concat([PNG, Buffer.alloc(extra)]);
      png.writeUInt32BE(width, 16);
      png.writeUInt32BE(height, 20);
      return png;
    };
    await expect(
      service.upload('ws-1', 'u', { body: withHeader(1125, 1345, 0), fileName: 'a.png' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      context: { file: 'this PNG is 1125×1345 pixels; a pass image is at most 1125×1344' },
    });
    await expect(
      service.upload('ws-1', 'u', { body: withHeader(1, 1, 300 * 1024), fileName: 'a.png' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      context: { file: expect.stringMatching(/^this PNG has 307233 bytes, more than a 1×1 PNG/) },
    });
    const broken = Buffer.from(PNG);
    broken[24] = 3; // bit depth 3 exists for no colour type
    await expect(
      service.upload('ws-1', 'u', { body: broken, fileName: 'a.png' }),
    ).rejects.toMatchObject({ context: { file: 'is not a valid PNG (malformed IHDR header)' } });
    // The same bytes are fine where no pass image is expected.
    await service.upload('ws-1', 'u', {
      body: withHeader(1, 1, 300 * 1024),
      fileName: 'a.png',
      bucket: 'campaign-assets',
    });
    expect(storage.objects.size).toBe(1);
  });

  it('takes any recognised type into other buckets, and nothing unrecognised', async () => {
    const jpeg = await service.upload('ws-1', 'u', {
      body: JPEG,
      fileName: 'poster.png',
      bucket: 'campaign-assets',
    });
    expect(jpeg.contentType).toBe('image/jpeg');
    const csv = await service.upload('ws-1', 'u', {
      body: Buffer.from('a,b\n1,2\n'),
      fileName: 'views.csv',
      bucket: 'campaign-assets',
    });
    expect(csv.contentType).toBe('text/csv');
    await expect(
      service.upload('ws-1', 'u', {
        body: Buffer.from('a,b\n'),
        fileName: 'views.txt',
        bucket: 'campaign-assets',
      }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', context: { contentType: null } });
  });

  it("finds uploads within the workspace only; another workspace's key is not found", async () => {
    const upload = await service.upload('ws-1', 'u', { body: PNG, fileName: 'a.png' });
    await expect(service.getForWorkspace('ws-1', upload.id)).resolves.toBe(upload);
    await expect(service.getForWorkspace('ws-2', upload.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      context: { id: upload.id },
    });
    await expect(service.getForWorkspace('ws-2', upload.id)).rejects.toThrow('Upload not found');
    expect(repository.lookups).toEqual([
      { workspaceId: 'ws-1', id: upload.id },
      { workspaceId: 'ws-2', id: upload.id },
      { workspaceId: 'ws-2', id: upload.id },
    ]);
    await expect(service.getForWorkspace('ws-1', '../etc')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(repository.lookups).toHaveLength(3);
  });

  it('signs URLs for an hour unless told otherwise', async () => {
    const upload = await service.upload('ws-1', 'u', { body: PNG, fileName: 'a.png' });
    await expect(service.signedUrl(upload)).resolves.toBe(`signed:${upload.storageKey}:a.png:3600`);
    await expect(service.signedUrl(upload, 60)).resolves.toBe(
      `signed:${upload.storageKey}:a.png:60`,
    );
  });

  it('opens the stored bytes, and reports a lost file as the upload not found', async () => {
    const upload = await service.upload('ws-1', 'u', { body: PNG, fileName: 'a.png' });
    const opened = await service.open(upload);
    expect(opened).toMatchObject({ size: PNG.length, contentType: 'image/png' });
    storage.objects.clear();
    await expect(service.open(upload)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      context: { id: upload.id },
    });
  });

  it('keeps files made from an upload beside its folder, and reads none past a bound', async () => {
    const upload = await service.upload('ws-1', 'u', { body: PNG, fileName: 'scaled' });
    expect(await service.readDerived(upload, 'small.png', 100)).toBeUndefined();
    await service.storeDerived(upload, 'small.png', PNG, 'image/png');
    // Not in the upload's folder, whose names the client chooses (this one is `scaled`).
    expect(storage.objects.get(`pass-assets/ws-1/${upload.id}.derived/small.png`)).toEqual({
      body: PNG,
      contentType: 'image/png',
    });
    expect(await service.readDerived(upload, 'small.png', PNG.length)).toEqual(PNG);
    expect(await service.readDerived(upload, 'small.png', PNG.length - 1)).toBeUndefined();
  });
});
