import { APP_CONFIG, BoundedMap, ConflictError, LoadOnceCache, type AppConfig } from '@app/core';
import { LocationsService } from '@app/locations';
import { passImagesOf, passTypeOf } from '@app/kinds';
import { shownMessage, type Holder, type Pass } from '@app/passes';
import { PASS_IMAGES_MAX_BYTES, UploadsService } from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { PassTokenService } from '../signing/pass-token.service';
import { SigningMaterialProvider } from '../signing/signing-material';
import { ImageScales } from './image-scales';
import { buildPassFiles } from './pass-files';
import { passSigner, writePkpass, writePkpasses, type PassSigner } from './pkpass-archive';

export interface PassPackage {
  buffer: Buffer;
  /** Strong validator: the SHA-1 of the package bytes. */
  etag: string;
  /** When the pass last changed for holders (HTTP dates have whole seconds). */
  lastModified: Date;
}

/** Packages kept in memory; each is a few hundred KB at most (images dominate). */
const CACHE_MAX_ENTRIES = 500;
const CACHE_MAX_BYTES = 128 * 1024 * 1024;

/**
 * Builds and signs the .pkpass of a pass version. A version's package never changes, so it is
 * cached by (pass id, version): serving a pass to many holders signs it once. Concurrent
 * requests for a version not yet built share one build.
 */
@Injectable()
export class PassPackageService {
  private readonly packages = new LoadOnceCache<string, PassPackage>(
    new BoundedMap(CACHE_MAX_ENTRIES, {
      maxWeight: CACHE_MAX_BYTES,
      weigh: (built) => built.buffer.length,
    }),
  );
  private signer?: PassSigner;

  constructor(
    private readonly signing: SigningMaterialProvider,
    private readonly tokens: PassTokenService,
    private readonly uploads: UploadsService,
    private readonly scales: ImageScales,
    private readonly locations: LocationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async packageFor(pass: Pass): Promise<PassPackage> {
    return this.packages.get(`${pass.id}:${pass.version}`, () => this.build(pass));
  }

  /**
   * A personal holder's package: the pass's, with the holder's serial number, token, barcode
   * and field values. Cached by (pass version, holder version): either moving on makes a new
   * one. Last-Modified is the later of the two changes.
   */
  async packageForHolder(pass: Pass, holder: Holder): Promise<PassPackage> {
    return this.packages.get(`${pass.id}:${pass.version}:${holder.id}:${holder.version}`, () =>
      this.build(pass, holder),
    );
  }

  /**
   * A bundle of holders' packages: one `.pkpasses` with each holder's own
   * package, exactly as {@link packageForHolder} serves it (cached per holder version), named by
   * the holder's serial number, in the holders' order. Last-Modified is the latest of theirs.
   * Not cached itself: zipping stored packages costs a copy of their bytes.
   */
  async bundleForHolders(pass: Pass, holders: readonly Holder[]): Promise<PassPackage> {
    const packages = await Promise.all(
      holders.map((holder) => this.packageForHolder(pass, holder)),
    );
    const lastModified = new Date(
      Math.max(...packages.map((built) => built.lastModified.getTime())),
    );
    const buffer = await writePkpasses(
      holders.map((holder, index) => [`${holder.serialNumber}.pkpass`, packages[index].buffer]),
      lastModified,
    );
    return { buffer, etag: `"${createHash('sha1').update(buffer).digest('hex')}"`, lastModified };
  }

  private async build(pass: Pass, holder?: Holder): Promise<PassPackage> {
    this.signer ??= passSigner(this.signing.get());
    const [authenticationToken, locations, images] = await Promise.all([
      holder === undefined ? this.tokens.tokenFor(pass) : this.tokens.tokenForHolder(holder),
      this.locations.enabledForPass(pass.workspaceId, pass.id),
      this.images(pass),
    ]);
    const message = shownMessage(pass, holder);
    const passFiles = buildPassFiles(pass, {
      passTypeIdentifier: this.config.walletA.passTypeId,
      teamIdentifier: this.config.walletA.teamId,
      webServiceURL: `${this.config.publicBaseUrl}/passkit`,
      authenticationToken,
      // The latest notification: its changeMessage puts the message on the lock screen.
      messageField: message
        ? {
            key: 'notification',
            ...(message.label ? { label: message.label } : {}),
            value: message.message,
            changeMessage: '%@',
          }
        : undefined,
      locations: locations.map((location) => ({
        latitude: location.latitude,
        longitude: location.longitude,
        altitude: location.altitude,
        relevantText: location.relevantText,
      })),
      holder:
        holder === undefined
          ? undefined
          : {
              serialNumber: holder.serialNumber,
              fieldValues: holder.fieldValues,
              barcodeValue: holder.barcodeValue,
              barcodeText: holder.barcodeText,
              voided: holder.status === 'Voided',
              relevantDate: holder.relevantDate,
              expirationDate: holder.expirationDate,
              passengerName: holder.passengerName,
              nfcMessage: holder.nfcMessage,
            },
    });
    const changed = Math.max(pass.updatedTime.getTime(), holder?.updatedTime.getTime() ?? 0);
    const lastModified = new Date(Math.floor(changed / 1000) * 1000);
    const files = new Map([['pass.json', passFiles.passJson], ...images, ...passFiles.strings]);
    const buffer = await writePkpass(files, this.signer, lastModified);
    return { buffer, etag: `"${createHash('sha1').update(buffer).digest('hex')}"`, lastModified };
  }

  /**
   * The pass's images its kind's style shows (`passImagesOf`; one set of brand images serves
   * every kind, and a boarding pass has no strip), within the package limit, each at @1x, @2x
   * and @3x (`ImageScales`). Publishing enforces the limit on the uploaded bytes; this holds it
   * for passes published before it existed, and reads no file past its recorded size.
   */
  private async images(pass: Pass): Promise<[string, Buffer][]> {
    const shown = new Set(
      passImagesOf(
        passTypeOf(pass.passMetadata),
        pass.uploadInfoList.map((info) => info.fileName),
        Boolean(pass.passMetadata.nfc),
      ).shown,
    );
    const infos = pass.uploadInfoList.filter((info) => shown.has(info.fileName));
    const uploads = await Promise.all(
      infos.map((info) => this.uploads.getForWorkspace(pass.workspaceId, info.uploadKey)),
    );
    const total = uploads.reduce((sum, upload) => sum + upload.size, 0);
    if (total > PASS_IMAGES_MAX_BYTES) {
      throw new ConflictError(
        `The pass's images have ${total} bytes, more than a package may hold (${PASS_IMAGES_MAX_BYTES}); replace them`,
        { passId: pass.id },
      );
    }
    const images = await Promise.all(
      uploads.map(async (upload, index) => ({
        fileName: infos[index].fileName,
        upload,
        bytes: await this.uploads.readBytes(upload, upload.size),
      })),
    );
    return this.scales.packageImages(images);
  }
}
