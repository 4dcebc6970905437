import { ConflictError, loadConfig, UnavailableError } from '@app/core';
import {
  readPngHeader,
  StoredObjectNotFoundError,
  Upload,
  UploadsService,
  type SignedUrlOptions,
  type StorageDriver,
  type StoredObject,
} from '@app/uploads';
import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { Repository } from 'typeorm';
import { ImageScales, planImages, scaledSize, type GivenImage } from './image-scales';

class MemoryStorage implements StorageDriver {
  readonly objects = new Map<string, Buffer>();
  failPuts = false;

  put(key: string, body: Buffer): Promise<void> {
    if (this.failPuts) return Promise.reject(new UnavailableError('File storage is unavailable'));
    this.objects.set(key, body);
    return Promise.resolve();
  }
  get(key: string): Promise<StoredObject> {
    const body = this.objects.get(key);
    if (body === undefined) return Promise.reject(new StoredObjectNotFoundError(key));
    return Promise.resolve({
      stream: Readable.from([body]),
      size: body.length,
      contentType: 'image/png',
    });
  }
  delete(key: string): Promise<void> {
    this.objects.delete(key);
    return Promise.resolve();
  }
  signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    return Promise.resolve(`signed:${key}:${options.fileName}`);
  }
}

/** An 8-bit RGBA PNG of a left-to-right gradient (so a resize has something to average). */
async function png(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      pixels.set([Math.round((255 * x) / width), 64, 128, 255], (y * width + x) * 4);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

const sizeOf = (bytes: Buffer) => {
  const header = readPngHeader(bytes);
  return header && { width: header.width, height: header.height };
};

let uploadCount = 0;

function given(fileName: string, bytes: Buffer): GivenImage {
  const upload = Object.assign(new Upload(), {
    id: `0190000${(++uploadCount).toString().padStart(2, '0')}-0000-7000-8000-000000000000`,
    workspaceId: 'ws-1',
    bucket: 'pass-assets',
    fileName,
    contentType: 'image/png',
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  upload.storageKey = `pass-assets/ws-1/${upload.id}/${fileName}`;
  return { fileName, upload, bytes };
}

describe('planImages', () => {
  it('makes the @1x and @2x of an image given under its plain name, which is its @3x', () => {
    expect(planImages(['logo.png', 'icon.png'])).toEqual([
      { fileName: 'logo.png', from: 0, scale: 1 },
      { fileName: 'logo@2x.png', from: 0, scale: 2 },
      { fileName: 'logo@3x.png', given: 0 },
      { fileName: 'icon.png', from: 1, scale: 1 },
      { fileName: 'icon@2x.png', from: 1, scale: 2 },
      { fileName: 'icon@3x.png', given: 1 },
    ]);
  });

  it('uses explicit scale names as given, the plain name then being the @1x', () => {
    expect(planImages(['icon@3x.png', 'icon.png', 'icon@2x.png'])).toEqual([
      { fileName: 'icon.png', given: 1 },
      { fileName: 'icon@2x.png', given: 2 },
      { fileName: 'icon@3x.png', given: 0 },
    ]);
    // A scale the role lacks is made from its @3x ...
    expect(planImages(['strip.png', 'strip@3x.png'])).toEqual([
      { fileName: 'strip.png', given: 0 },
      { fileName: 'strip@2x.png', from: 1, scale: 2 },
      { fileName: 'strip@3x.png', given: 1 },
    ]);
    expect(planImages(['artwork@3x.png'])).toEqual([
      { fileName: 'artwork.png', from: 0, scale: 1 },
      { fileName: 'artwork@2x.png', from: 0, scale: 2 },
      { fileName: 'artwork@3x.png', given: 0 },
    ]);
    // ... and never by scaling up.
    expect(planImages(['logo.png', 'logo@2x.png'])).toEqual([
      { fileName: 'logo.png', given: 0 },
      { fileName: 'logo@2x.png', given: 1 },
    ]);
    expect(planImages(['thumbnail@2x.png'])).toEqual([{ fileName: 'thumbnail@2x.png', given: 0 }]);
  });
});

describe('scaledSize', () => {
  it('is a third and two thirds of the @3x, rounded, at least one pixel', () => {
    expect(scaledSize({ width: 114, height: 114 }, 1)).toEqual({ width: 38, height: 38 });
    expect(scaledSize({ width: 114, height: 114 }, 2)).toEqual({ width: 76, height: 76 });
    expect(scaledSize({ width: 479, height: 149 }, 1)).toEqual({ width: 160, height: 50 });
    expect(scaledSize({ width: 479, height: 149 }, 2)).toEqual({ width: 319, height: 99 });
    expect(scaledSize({ width: 1, height: 2 }, 1)).toEqual({ width: 1, height: 1 });
    expect(scaledSize({ width: 1, height: 2 }, 2)).toEqual({ width: 1, height: 1 });
  });
});

describe('ImageScales', () => {
  let storage: MemoryStorage;
  let uploads: UploadsService;

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  beforeEach(() => {
    storage = new MemoryStorage();
    uploads = new UploadsService(
      {} as Repository<Upload>,
      storage,
      loadConfig({ JWT_SECRET: 'x'.repeat(32) }),
    );
  });

  const filesOf = async (scales: ImageScales, images: GivenImage[]) =>
    new Map(await scales.packageImages(images));

  it('holds each image at @1x, @2x and @3x, sized 1:2:3, the @3x as uploaded', async () => {
    const icon = given('icon.png', await png(114, 114));
    const logo = given('logo.png', await png(479, 149));
    const files = await filesOf(new ImageScales(uploads), [icon, logo]);
    expect([...files.keys()]).toEqual([
      'icon.png',
      'icon@2x.png',
      'icon@3x.png',
      'logo.png',
      'logo@2x.png',
      'logo@3x.png',
    ]);
    expect(files.get('icon@3x.png')).toBe(icon.bytes);
    expect(sizeOf(files.get('icon.png')!)).toEqual({ width: 38, height: 38 });
    expect(sizeOf(files.get('icon@2x.png')!)).toEqual({ width: 76, height: 76 });
    expect(files.get('logo@3x.png')).toBe(logo.bytes);
    expect(sizeOf(files.get('logo.png')!)).toEqual({ width: 160, height: 50 });
    expect(sizeOf(files.get('logo@2x.png')!)).toEqual({ width: 319, height: 99 });
    // A resize, not a crop: the gradient still runs from dark to light red.
    const { data } = await sharp(files.get('logo.png')).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeLessThan(10);
    expect(data[(160 - 1) * 4]).toBeGreaterThan(245);
  });

  it('uses images given under explicit scale names as they are', async () => {
    const scales = new ImageScales(uploads);
    const resize = jest.spyOn(scales, 'resize');
    const images = [
      given('icon.png', await png(38, 38)),
      given('icon@2x.png', await png(76, 76)),
      given('icon@3x.png', await png(114, 114)),
    ];
    const files = await filesOf(scales, images);
    expect(files.get('icon.png')).toBe(images[0].bytes);
    expect(files.get('icon@2x.png')).toBe(images[1].bytes);
    expect(files.get('icon@3x.png')).toBe(images[2].bytes);
    expect(resize).not.toHaveBeenCalled();

    // Given a @1x and a @3x, only the @2x is made, from the @3x.
    const partial = await filesOf(scales, [images[0], images[2]]);
    expect(partial.get('icon.png')).toBe(images[0].bytes);
    expect(sizeOf(partial.get('icon@2x.png')!)).toEqual({ width: 76, height: 76 });
    expect(resize).toHaveBeenCalledTimes(1);
  });

  it('resizes each image once for concurrent and repeated builds, and stores the result', async () => {
    const scales = new ImageScales(uploads);
    const resize = jest.spyOn(scales, 'resize');
    const strip = given('strip.png', await png(1125, 369));
    const builds = await Promise.all(Array.from({ length: 5 }, () => filesOf(scales, [strip])));
    await filesOf(scales, [strip]);
    expect(resize).toHaveBeenCalledTimes(2);
    for (const files of builds) {
      expect(files.get('strip@2x.png')).toBe(builds[0].get('strip@2x.png'));
    }
    const stored = [...storage.objects.keys()].sort();
    expect(stored).toEqual([
      `pass-assets/ws-1/${strip.upload.id}.derived/${strip.upload.sha256}-1x.png`,
      `pass-assets/ws-1/${strip.upload.id}.derived/${strip.upload.sha256}-2x.png`,
    ]);
    expect(sizeOf(storage.objects.get(stored[0])!)).toEqual({ width: 375, height: 123 });
  });

  it('reuses stored resizes in a new instance (another process, a restart)', async () => {
    const strip = given('strip.png', await png(1125, 369));
    const first = await filesOf(new ImageScales(uploads), [strip]);
    const restarted = new ImageScales(uploads);
    const resize = jest.spyOn(restarted, 'resize');
    const again = await filesOf(restarted, [strip]);
    expect(resize).not.toHaveBeenCalled();
    expect(again.get('strip.png')!.equals(first.get('strip.png')!)).toBe(true);
    expect(again.get('strip@2x.png')!.equals(first.get('strip@2x.png')!)).toBe(true);
  });

  it('makes a stored resize of the wrong size again, and replaces it', async () => {
    const icon = given('icon.png', await png(114, 114));
    await filesOf(new ImageScales(uploads), [icon]);
    const key = `pass-assets/ws-1/${icon.upload.id}.derived/${icon.upload.sha256}-1x.png`;
    storage.objects.set(key, await png(10, 10));
    const scales = new ImageScales(uploads);
    const resize = jest.spyOn(scales, 'resize');
    const files = await filesOf(scales, [icon]);
    expect(resize).toHaveBeenCalledTimes(1);
    expect(sizeOf(files.get('icon.png')!)).toEqual({ width: 38, height: 38 });
    expect(sizeOf(storage.objects.get(key)!)).toEqual({ width: 38, height: 38 });
  });

  it('still builds when a resize cannot be stored, and stores it the next time', async () => {
    const icon = given('icon.png', await png(114, 114));
    storage.failPuts = true;
    const files = await filesOf(new ImageScales(uploads), [icon]);
    expect(sizeOf(files.get('icon@2x.png')!)).toEqual({ width: 76, height: 76 });
    expect(storage.objects.size).toBe(0);
    storage.failPuts = false;
    await filesOf(new ImageScales(uploads), [icon]);
    expect(storage.objects.size).toBe(2);
  });

  it('answers 409 for a stored image that cannot be decoded, and stores nothing', async () => {
    // A file cut short: its header says 114×114, half of its picture is missing.
    const good = await png(114, 114);
    const icon = given('icon.png', good.subarray(0, Math.floor(good.length / 2)));
    const error = await new ImageScales(uploads).packageImages([icon]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({
      message: `The pass's image icon.png (upload ${icon.upload.id}) cannot be read as a PNG; replace it`,
    });
    expect(storage.objects.size).toBe(0);
  });

  it('answers 409 for an image larger than its role before decoding it', async () => {
    const icon = given('icon.png', await png(300, 300));
    const scales = new ImageScales(uploads);
    const resize = jest.spyOn(scales, 'resize');
    await expect(scales.packageImages([icon])).rejects.toThrow(
      /icon\.png .* is 300×300 pixels; a icon image is at most 114×114; replace it/,
    );
    expect(resize).not.toHaveBeenCalled();
  });

  it('passes a storage outage on reading as it is (503)', async () => {
    const icon = given('icon.png', await png(114, 114));
    jest
      .spyOn(storage, 'get')
      .mockRejectedValue(new UnavailableError('File storage is unavailable'));
    await expect(new ImageScales(uploads).packageImages([icon])).rejects.toBeInstanceOf(
      UnavailableError,
    );
  });

  it('writes 8-bit PNGs whatever the upload', async () => {
    const deep = await sharp(await png(90, 90))
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect(readPngHeader(deep)?.bitDepth).toBe(16);
    const files = await filesOf(new ImageScales(uploads), [given('thumbnail.png', deep)]);
    expect(readPngHeader(files.get('thumbnail@2x.png')!)).toMatchObject({
      width: 60,
      height: 60,
      bitDepth: 8,
    });
  });
});
