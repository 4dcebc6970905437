import { BoundedMap, ConflictError, LoadOnceCache } from '@app/core';
import {
  maxPixels,
  PNG,
  passImageProblem,
  passImageRole,
  pngSizeBound,
  readPngHeader,
  UploadsService,
  type PassImageRole,
  type Upload,
} from '@app/uploads';
import { Injectable, Logger } from '@nestjs/common';
import sharp from 'sharp';

// Each resize here is of bytes made once and then kept (below and in storage): libvips' own
// cache of operations would only hold memory.
sharp.cache(false);

/** The scales Wallet shows an image at: `icon.png`, `icon@2x.png`, `icon@3x.png`. */
export type Scale = 1 | 2 | 3;

const SCALES: readonly Scale[] = [1, 2, 3];

/** One of a pass's shown images, as the package builder read it. */
export interface GivenImage {
  /** Its name in `uploadInfoList`: `icon.png`, `logo@2x.png`, ... */
  fileName: string;
  upload: Upload;
  bytes: Buffer;
}

/** Where one image file of the package comes from. */
export type PlannedImage =
  | { fileName: string; given: number }
  /** Resized from `given[from]`, the role's @3x, to `scale`/3 of its size. */
  | { fileName: string; from: number; scale: 1 | 2 };

/** `icon.png`, `icon@2x.png`, `icon@3x.png`. */
export const scaledName = (role: PassImageRole, scale: Scale): string =>
  scale === 1 ? `${role}.png` : `${role}@${scale}x.png`;

/**
 * The image files of a package from the names of the images it shows. A role given only under
 * its plain name (`icon.png`) was uploaded at @3x: it is the package's `icon@3x.png` as it is,
 * and `icon.png` and `icon@2x.png` are made from it. A role given any explicit scale name
 * (`icon@2x.png`, `icon@3x.png`) is used as given, its plain name then the @1x as Apple names
 * it; a scale it lacks is made from its @3x when it has one, and is left out otherwise (nothing
 * is scaled up).
 */
export function planImages(fileNames: readonly string[]): PlannedImage[] {
  const roles = new Map<PassImageRole, { plain?: number; 2?: number; 3?: number }>();
  fileNames.forEach((fileName, index) => {
    const role = passImageRole(fileName);
    if (role === undefined) return;
    const given = roles.get(role) ?? {};
    const scale = /@([23])x\.png$/.exec(fileName)?.[1];
    if (scale === '2' || scale === '3') given[scale] ??= index;
    else given.plain ??= index;
    roles.set(role, given);
  });
  const planned: PlannedImage[] = [];
  for (const [role, given] of roles) {
    const explicit = given[2] !== undefined || given[3] !== undefined;
    const byScale: Record<Scale, number | undefined> = {
      1: explicit ? given.plain : undefined,
      2: given[2],
      3: explicit ? given[3] : given.plain,
    };
    const source = byScale[3];
    for (const scale of SCALES) {
      const fileName = scaledName(role, scale);
      const index = byScale[scale];
      if (index !== undefined) planned.push({ fileName, given: index });
      else if (source !== undefined && scale !== 3) planned.push({ fileName, from: source, scale });
    }
  }
  return planned;
}

/** `scale`/3 of an @3x image's size, each side rounded, at least one pixel. */
export function scaledSize(
  header: { width: number; height: number },
  scale: 1 | 2,
): { width: number; height: number } {
  return {
    width: Math.max(1, Math.round((header.width * scale) / 3)),
    height: Math.max(1, Math.round((header.height * scale) / 3)),
  };
}

/** Resized images kept in memory, beyond those in storage: a few packages' worth. */
const KEPT_MAX_ENTRIES = 1000;
const KEPT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The @1x and @2x of the images uploaded at @3x. Each is made once per upload and scale and
 * stored beside the upload (`UploadsService.storeDerived`, named by the upload's SHA-256 and the
 * scale), so that every instance, restart and later package build reuses it; builds asking for
 * one at once share one resize, and the latest are also kept in memory.
 */
@Injectable()
export class ImageScales {
  private readonly logger = new Logger(ImageScales.name);
  private readonly resized = new LoadOnceCache<string, Buffer>(
    new BoundedMap(KEPT_MAX_ENTRIES, {
      maxWeight: KEPT_MAX_BYTES,
      weigh: (bytes) => bytes.length,
    }),
  );

  constructor(private readonly uploads: UploadsService) {}

  /** The package's image files, by name, for the shown images of a pass (see planImages). */
  async packageImages(images: readonly GivenImage[]): Promise<[string, Buffer][]> {
    return Promise.all(
      planImages(images.map((image) => image.fileName)).map(
        async (planned): Promise<[string, Buffer]> => [
          planned.fileName,
          'given' in planned
            ? images[planned.given].bytes
            : await this.scaled(images[planned.from], planned.scale),
        ],
      ),
    );
  }

  /** An image uploaded at @3x, at `scale`/3 of its size. */
  async scaled(image: GivenImage, scale: 1 | 2): Promise<Buffer> {
    return this.resized.get(`${image.upload.id}:${image.upload.sha256}:${scale}`, () =>
      this.storedOrMade(image, scale),
    );
  }

  /** Resizes a PNG to exactly `width`×`height`, as an 8-bit sRGB PNG. */
  async resize(source: Buffer, width: number, height: number, pixelLimit: number): Promise<Buffer> {
    // failOn 'error': damaged picture data (a file cut short) fails, to be replaced, rather
    // than becoming a half-drawn image in every package. The resize is made once and then kept,
    // so the slowest compression is worth the bytes it saves in every package.
    return sharp(source, { failOn: 'error', limitInputPixels: pixelLimit })
      .resize(width, height, { fit: 'fill' })
      .toColourspace('srgb')
      .png({ compressionLevel: 9, adaptiveFiltering: true })
      .toBuffer();
  }

  private async storedOrMade(image: GivenImage, scale: 1 | 2): Promise<Buffer> {
    const { upload, fileName } = image;
    const role = passImageRole(fileName);
    const header = readPngHeader(image.bytes);
    if (role === undefined || header === undefined) throw unreadable(image, 'is not a PNG');
    // Publishing checks this too; a pass from before the limits is checked here, before its
    // image is decoded.
    const problem = passImageProblem(header, image.bytes.length, role);
    if (problem !== undefined) throw unreadable(image, problem);
    const size = scaledSize(header, scale);
    const name = `${upload.sha256}-${scale}x.png`;
    const stored = await this.uploads.readDerived(upload, name, rgbaBound(size));
    if (stored !== undefined && hasSize(stored, size)) return stored;

    const limit = maxPixels(role);
    let made: Buffer;
    try {
      made = await this.resize(image.bytes, size.width, size.height, limit.width * limit.height);
    } catch (error) {
      this.logger.warn(
        { err: error, uploadKey: upload.id, fileName },
        'Could not resize a pass image',
      );
      throw unreadable(image, 'cannot be read as a PNG');
    }
    // Storing is what saves the next instance a resize; this build has the bytes either way.
    await this.uploads.storeDerived(upload, name, made, PNG).catch((error: unknown) => {
      this.logger.warn(
        { err: error, uploadKey: upload.id, name },
        'Could not store a resized pass image; it is made again when next needed',
      );
    });
    return made;
  }
}

/** The 409 of an image no package can be made from, which the brand must replace. */
function unreadable(image: GivenImage, problem: string): ConflictError {
  return new ConflictError(
    `The pass's image ${image.fileName} (upload ${image.upload.id}) ${problem}; replace it`,
    { uploadKey: image.upload.id, fileName: image.fileName },
  );
}

/** The most bytes an honest 8-bit RGBA PNG of this size has: what `resize` writes. */
function rgbaBound(size: { width: number; height: number }): number {
  return pngSizeBound({ ...size, bitDepth: 8, colorType: 6, interlaced: false });
}

/** A stored resize is used only if it is a PNG of the size wanted; else it is made again. */
function hasSize(bytes: Buffer, size: { width: number; height: number }): boolean {
  const header = readPngHeader(bytes);
  return header !== undefined && header.width === size.width && header.height === size.height;
}
