import {
  APP_CONFIG,
  BoundedMap,
  isUniqueViolation,
  NotFoundError,
  type AppConfig,
} from '@app/core';
import { GoogleSaveLinks, type GoogleSaveLinkProvider, type Holder, type Pass } from '@app/passes';
import { UploadsService } from '@app/uploads';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { classTypeFor, saveLinkPayload } from '../google/class-types';
import { GoogleWalletClient, type GoogleResult } from '../google/google-wallet-client';
import { signRs256Jwt } from '../google/jwt';
import {
  buildHolderObjectContent,
  buildObjectContent,
  buildPassClass,
  classIdFor,
  holderObjectId,
  newObjectId,
  objectImageKeys,
  type ObjectImages,
} from '../google/pass-resources';
import { WALLET_B_SERVICE_ACCOUNT, type ServiceAccount } from '../google/service-account';
import type { ClassType, WalletClass, WalletObject } from '../google/wallet-objects.types';
import { WalletBClass } from './wallet-b-class.entity';

export const GOOGLE_SAVE_URL_PREFIX = 'https://pay.google.com/gp/v/save/';

/**
 * Image URLs handed to Google (logo, hero image) stay valid this long: Google fetches them when
 * an object is saved or patched. Seven days is also the longest S3 presigns.
 */
const OBJECT_IMAGE_URL_SECONDS = 7 * 24 * 3600;

/** Class types kept in memory; a pass's never changes, so this only bounds the memory. */
const CLASS_TYPE_CACHE_SIZE = 10_000;

/**
 * A pass's class at Google and the objects holders save of it: the class type the pass was
 * given (loyalty, offer, event ticket, flight, transit or generic), the class kept up to date,
 * and the "Add to WalletB" save links of the shared pass and of a personal holder. Used by the
 * passes API and the holder page (save links, through the `GoogleSaveLinks` registry it fills),
 * the class-sync worker and the messages (`WalletBMessagesService`).
 */
@Injectable()
export class WalletBClassesService implements GoogleSaveLinkProvider, OnModuleInit {
  private readonly classTypes = new BoundedMap<string, ClassType>(CLASS_TYPE_CACHE_SIZE);

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: GoogleWalletClient,
    private readonly uploads: UploadsService,
    private readonly saveLinks: GoogleSaveLinks,
    @Inject(WALLET_B_SERVICE_ACCOUNT) private readonly account: ServiceAccount | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.saveLinks.provide(this);
  }

  get configured(): boolean {
    return this.account !== null;
  }

  get issuerId(): string {
    return this.config.walletB.issuerId;
  }

  /**
   * An "Add to WalletB" link for one new holder: Google's save URL with an RS256 JWT (signed
   * with the service account's key) whose payload is a new object of the pass's class. Null
   * when WalletB is not configured or the pass is not Published.
   */
  async saveUrlFor(pass: Pass): Promise<string | null> {
    if (this.account === null || !this.passCanSave(pass)) return null;
    const [type, images] = await Promise.all([this.classTypeOf(pass), this.objectImages(pass)]);
    return this.saveUrlOf(this.account, type, {
      id: newObjectId(this.issuerId, pass.id),
      classId: classIdFor(this.issuerId, pass.id),
      ...buildObjectContent(pass, type, images),
    });
  }

  /**
   * A personal holder's "Add to WalletB" link: always the holder's own object
   * (`<issuer id>.<serial number>`) with its barcode and field values, so saving it twice is
   * the same object. Null when WalletB is not configured, the pass is not Published or the
   * holder is Voided (nothing to add any more).
   */
  async saveUrlForHolder(pass: Pass, holder: Holder): Promise<string | null> {
    if (this.account === null || !this.holderCanSave(pass, holder)) return null;
    const [type, images] = await Promise.all([this.classTypeOf(pass), this.objectImages(pass)]);
    return this.saveUrlOf(this.account, type, this.holderObject(pass, type, holder, images));
  }

  /**
   * A bundle's "Add to WalletB" link: one save link of the holders' own objects
   * (each as {@link saveUrlForHolder} makes it), grouped as Google groups passes: one
   * `groupingId`, a `sortIndex` each in the holders' order. Holders that cannot be saved (Voided)
   * are left out; null when none is left or WalletB is not configured.
   */
  async saveUrlForHolders(
    pass: Pass,
    holders: Holder[],
    groupingId: string,
  ): Promise<string | null> {
    const savable = holders.filter((holder) => this.holderCanSave(pass, holder));
    if (this.account === null || savable.length === 0) return null;
    const [type, images] = await Promise.all([this.classTypeOf(pass), this.objectImages(pass)]);
    const objects = savable.map((holder, index): WalletObject => ({
      ...this.holderObject(pass, type, holder, images),
      groupingInfo: { groupingId, sortIndex: index + 1 },
    }));
    return this.saveUrlOf(this.account, type, ...objects);
  }

  /** Whether {@link saveUrlFor} has a link, without the image lookups and the signature. */
  passCanSave(pass: Pass): boolean {
    return this.account !== null && pass.status === 'Published' && pass.deletedTime === null;
  }

  /**
   * Whether {@link saveUrlForHolder} has a link, without the image lookups and the RS256
   * signature it costs: what `Holder.googleSaveUrl` (a redirect to it) is decided by.
   */
  holderCanSave(pass: Pass, holder: Holder): boolean {
    return this.passCanSave(pass) && holder.status === 'Active';
  }

  /** A personal holder's own object (`<issuer id>.<serial number>`), its values as they are. */
  private holderObject(
    pass: Pass,
    type: ClassType,
    holder: Holder,
    images: ObjectImages,
  ): WalletObject {
    return {
      id: holderObjectId(this.issuerId, holder),
      classId: classIdFor(this.issuerId, pass.id),
      ...buildHolderObjectContent(pass, type, holder, images),
    };
  }

  /**
   * Google's save URL: an RS256 JWT, signed with the service account's key, of the objects
   * under their class type's payload key (`loyaltyObjects`, `genericObjects`, ...).
   */
  private saveUrlOf(account: ServiceAccount, type: ClassType, ...objects: WalletObject[]): string {
    const jwt = signRs256Jwt(
      {
        typ: 'JWT',
        ...(account.privateKeyId !== undefined ? { kid: account.privateKeyId } : {}),
      },
      {
        iss: account.clientEmail,
        aud: 'google',
        typ: 'savetowallet',
        iat: Math.floor(Date.now() / 1000),
        origins: [new URL(this.config.publicBaseUrl).origin],
        payload: saveLinkPayload(type, ...objects),
      },
      account.privateKey,
    );
    return `${GOOGLE_SAVE_URL_PREFIX}${jwt}`;
  }

  /**
   * The pass's WalletB class type: the one it was given, else the one its kind makes
   * (`google/class-types.ts`), given now. Asked for Published passes only, whose kind cannot change any
   * more, so two callers that both give it give the same type.
   */
  async classTypeOf(pass: Pass): Promise<ClassType> {
    const cached = this.classTypes.get(pass.id);
    if (cached !== undefined) return cached;
    const classes = this.dataSource.getRepository(WalletBClass);
    const where = { workspaceId: pass.workspaceId, passId: pass.id };
    let type = (await classes.findOneBy(where))?.classType;
    if (type === undefined) {
      const given = classTypeFor(pass.passMetadata);
      try {
        await classes.insert({ ...where, classType: given, createdTime: new Date() });
        type = given;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another process gave it first: its row is the type.
        type = (await classes.findOneByOrFail(where)).classType;
      }
    }
    this.classTypes.set(pass.id, type);
    return type;
  }

  /** Creates the pass's class at Google, or brings it up to date when it exists. */
  async syncClass(pass: Pass): Promise<GoogleResult<WalletClass>> {
    const [type, images] = await Promise.all([this.classTypeOf(pass), this.objectImages(pass)]);
    const resource = buildPassClass(pass, type, this.issuerId, images, this.callbackUrl());
    const inserted = await this.client.insertClass(type, resource);
    if (inserted.ok || inserted.kind !== 'conflict') return inserted;
    return this.client.patchClass(type, resource);
  }

  /** Signed URLs of the logo and the strip image (as hero image), when the pass has them. */
  async objectImages(pass: Pass): Promise<ObjectImages> {
    const keys = objectImageKeys(pass);
    const url = async (key: string | undefined): Promise<string | null> => {
      if (key === undefined) return null;
      try {
        const upload = await this.uploads.getForWorkspace(pass.workspaceId, key);
        return await this.uploads.signedUrl(upload, OBJECT_IMAGE_URL_SECONDS);
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    };
    const [logoUrl, heroUrl] = await Promise.all([url(keys.logo), url(keys.hero)]);
    return { logoUrl, heroUrl };
  }

  /** Google calls back over HTTPS only, so a plain-HTTP base URL (development) sets none. */
  private callbackUrl(): string | undefined {
    const base = this.config.publicBaseUrl;
    return base.startsWith('https://') ? `${base}/callbacks/wallet-b` : undefined;
  }
}
