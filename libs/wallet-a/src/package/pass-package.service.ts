import { APP_CONFIG, type AppConfig } from '@app/core';
import { LocationsService } from '@app/locations';
import type { Pass } from '@app/passes';
import { UploadsService } from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { PKPass } from 'passkit-generator';
import { PassTokenService } from '../passkit/pass-token.service';
import { SigningMaterialProvider } from '../signing/signing-material';
import { buildPassJson } from './pass-json';

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

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * Builds and signs the .pkpass of a pass version. A version's package never changes, so it is
 * cached by (pass id, version): serving a pass to many holders signs it once. Concurrent
 * requests for a version not yet built share one build.
 */
@Injectable()
export class PassPackageService {
  private readonly cache = new Map<string, PassPackage>();
  private readonly building = new Map<string, Promise<PassPackage>>();
  private cachedBytes = 0;

  constructor(
    private readonly signing: SigningMaterialProvider,
    private readonly tokens: PassTokenService,
    private readonly uploads: UploadsService,
    private readonly locations: LocationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async packageFor(pass: Pass): Promise<PassPackage> {
    const key = `${pass.id}:${pass.version}`;
    const cached = this.cache.get(key);
    if (cached) {
      // Re-insert: Map order is the LRU order.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.build(pass).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    const built = await pending;
    this.remember(key, built);
    return built;
  }

  private async build(pass: Pass): Promise<PassPackage> {
    const material = this.signing.get();
    const [authenticationToken, locations, images] = await Promise.all([
      this.tokens.tokenFor(pass),
      this.locations.enabledForPass(pass.workspaceId, pass.id),
      this.images(pass),
    ]);
    const passJson = buildPassJson(pass, {
      passTypeIdentifier: this.config.walletA.passTypeId,
      teamIdentifier: this.config.walletA.teamId,
      webServiceURL: `${this.config.publicBaseUrl}/passkit`,
      authenticationToken,
      // The latest notification: its changeMessage puts the message on the lock screen.
      messageField: pass.walletAMessage
        ? {
            key: 'notification',
            ...(pass.walletAMessage.label ? { label: pass.walletAMessage.label } : {}),
            value: pass.walletAMessage.message,
            changeMessage: '%@',
          }
        : undefined,
      locations: locations.map((location) => ({
        latitude: location.latitude,
        longitude: location.longitude,
        altitude: location.altitude,
        relevantText: location.relevantText,
      })),
    });
    const bundle = new PKPass(
      { 'pass.json': Buffer.from(JSON.stringify(passJson)), ...images },
      { wwdr: material.wwdrPem, signerCert: material.certPem, signerKey: material.keyPem },
    );
    const buffer = bundle.getAsBuffer();
    const lastModified = new Date(Math.floor(pass.updatedTime.getTime() / 1000) * 1000);
    return { buffer, etag: `"${createHash('sha1').update(buffer).digest('hex')}"`, lastModified };
  }

  private async images(pass: Pass): Promise<Record<string, Buffer>> {
    const entries = await Promise.all(
      pass.uploadInfoList.map(async (info) => {
        const upload = await this.uploads.getForWorkspace(pass.workspaceId, info.uploadKey);
        const stored = await this.uploads.open(upload);
        return [info.fileName, await readAll(stored.stream)] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  private remember(key: string, built: PassPackage): void {
    if (this.cache.has(key)) return;
    this.cache.set(key, built);
    this.cachedBytes += built.buffer.length;
    for (const [oldest, entry] of this.cache) {
      if (this.cache.size <= CACHE_MAX_ENTRIES && this.cachedBytes <= CACHE_MAX_BYTES) break;
      this.cache.delete(oldest);
      this.cachedBytes -= entry.buffer.length;
    }
  }
}
