import { APP_CONFIG, isUniqueViolation, newId, NotFoundError, type AppConfig } from '@app/core';
import {
  GoogleSaveLinks,
  lockPassRow,
  type GoogleSaveLinkProvider,
  type Holder,
  type Pass,
} from '@app/passes';
import { UploadsService } from '@app/uploads';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, In, MoreThan } from 'typeorm';
import {
  GoogleWalletClient,
  NOT_CONFIGURED_REASON,
  type GoogleResult,
} from './google/google-wallet-client';
import { WalletBClass } from './classes/wallet-b-class.entity';
import { classTypeFor, saveLinkPayload } from './google/class-types';
import { signRs256Jwt } from './google/jwt';
import {
  buildHolderObjectContent,
  buildObjectContent,
  buildPassClass,
  classIdFor,
  holderObjectId,
  newObjectId,
  objectImageKeys,
  type ObjectImages,
} from './google/pass-resources';
import type { ServiceAccount } from './google/service-account';
import type {
  ClassType,
  MessageType,
  WalletClass,
  WalletMessage,
  WalletObject,
} from './google/wallet-objects.types';
import { NOTIFYING_MESSAGES_PER_DAY, NOTIFYING_WINDOW_MS } from './messages/notification-limit';
import { WALLET_B_CLASS_RECIPIENT, WalletBMessage } from './messages/wallet-b-message.entity';

/** Injection token of the parsed WALLET_B_SERVICE_ACCOUNT file (null when it is not set). */
export const WALLET_B_SERVICE_ACCOUNT = Symbol('WALLET_B_SERVICE_ACCOUNT');

export const GOOGLE_SAVE_URL_PREFIX = 'https://pay.google.com/gp/v/save/';

/**
 * Image URLs handed to Google (logo, hero image) stay valid this long: Google fetches them when
 * an object is saved or patched. Seven days is also the longest S3 presigns.
 */
const OBJECT_IMAGE_URL_SECONDS = 7 * 24 * 3600;

/** Class types kept in memory; a pass's never changes, so this only bounds the memory. */
const CLASS_TYPE_CACHE_SIZE = 10_000;

export interface WalletBMessageInput {
  /** Our id for the message (Google keeps it with the message). */
  id: string;
  header: string;
  body: string;
}

/** Where a message goes at Google: the pass's class, or one holder's object. */
interface MessageTarget {
  /** {@link WalletBMessage.recipient}. */
  recipient: string;
  /** The resource as Google has it now, to find a message an interrupted call sent. */
  messagesAtGoogle(): Promise<GoogleResult<{ messages?: WalletMessage[] }>>;
  add(message: WalletMessage): Promise<GoogleResult<unknown>>;
}

/**
 * `sent`: Google added the message to the pass's class (`recipients` = the pass's
 * googleActiveCount when it was sent) or to chosen holders' objects (`recipients` = how many); `notified` false when Google's limit of notifying
 * messages was reached and the message went out as TEXT (shown, no notification).
 */
export type WalletBSendResult =
  { status: 'sent'; recipients: number; notified: boolean } | { status: 'failed'; reason: string };

/**
 * The WalletB (Google Wallet) provider: the pass's class (of the pass's class type: loyalty,
 * offer, event ticket, flight, transit or generic), "Add to WalletB" save links,
 * and messages to holders. Used by the passes API (save links), the holder page, the
 * notifications worker (messages, through its WalletB channel) and the class-sync worker.
 */
@Injectable()
export class WalletBService implements GoogleSaveLinkProvider, OnModuleInit {
  private readonly classTypes = new Map<string, ClassType>();

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
    return this.saveUrlOf(this.account, type, {
      id: holderObjectId(this.issuerId, holder),
      classId: classIdFor(this.issuerId, pass.id),
      ...buildHolderObjectContent(pass, type, holder, images),
    });
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

  /**
   * Google's save URL: an RS256 JWT, signed with the service account's key, of the object under
   * its class type's payload key (`loyaltyObjects`, `genericObjects`, ...).
   */
  private saveUrlOf(account: ServiceAccount, type: ClassType, object: WalletObject): string {
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
        payload: saveLinkPayload(type, object),
      },
      account.privateKey,
    );
    return `${GOOGLE_SAVE_URL_PREFIX}${jwt}`;
  }

  /**
   * The pass's WalletB class type: the one it was given, else the one its kind makes
   * (class-types.ts), given now. Asked for Published passes only, whose kind cannot change any
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
    if (this.classTypes.size >= CLASS_TYPE_CACHE_SIZE) this.classTypes.clear();
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

  /**
   * Adds a message to the pass's class: every holder sees it on the back of the pass. It is
   * sent as TEXT_AND_NOTIFY (holders are notified) while the pass has had fewer than Google's
   * limit of notifying messages in the last 24 hours, as TEXT (no notification) beyond it, or
   * when Google answers that the limit is reached. Reported `sent` only when Google accepted it.
   * A message id is sent once per pass: a repeated call (a caller retrying after a crash) gets
   * the first call's result, and one whose first call never finished is looked up at Google
   * before it is sent again.
   */
  async sendMessage(pass: Pass, input: WalletBMessageInput): Promise<WalletBSendResult> {
    const unsendable = this.unsendableReason(pass);
    if (unsendable !== null) return { status: 'failed', reason: unsendable };
    const classId = classIdFor(this.issuerId, pass.id);
    const type = await this.classTypeOf(pass);
    return this.deliverMessage(pass, input, {
      recipient: WALLET_B_CLASS_RECIPIENT,
      messagesAtGoogle: () => this.client.getClass(type, classId),
      add: async (message) => {
        const added = await this.client.addClassMessage(type, classId, message);
        if (added.ok || added.kind !== 'not-found') return added;
        // A class Google does not have yet (its sync is pending) is created first.
        const synced = await this.syncClass(pass);
        if (!synced.ok) return synced;
        return this.client.addClassMessage(type, classId, message);
      },
    });
  }

  /**
   * Adds a message to the objects of chosen holders only (DESIGN.md §6, `holderIds`): each
   * Active holder among them whose object is saved now gets it, as its own message, with
   * Google's limit of notifying messages counted per object. Each (message, holder) is sent
   * once, as {@link sendMessage} is per pass, so a caller may retry the whole call. `sent` when
   * Google accepted it for at least one object (`recipients`: how many), or when none of the
   * holders has an object; `failed` when Google refused every one.
   */
  async sendHolderMessages(
    pass: Pass,
    holderIds: readonly string[],
    input: WalletBMessageInput,
  ): Promise<WalletBSendResult> {
    const unsendable = this.unsendableReason(pass);
    if (unsendable !== null) return { status: 'failed', reason: unsendable };
    const holders = await this.savedHolderObjects(pass, holderIds);
    const type = await this.classTypeOf(pass);
    let recipients = 0;
    let notified = false;
    let failure: string | null = null;
    for (const holder of holders) {
      const objectId = holderObjectId(this.issuerId, holder);
      const result = await this.deliverMessage(pass, input, {
        recipient: holder.id,
        messagesAtGoogle: () => this.client.getObject(type, objectId),
        add: (message) => this.client.addObjectMessage(type, objectId, message),
      });
      if (result.status === 'sent') {
        recipients += 1;
        notified ||= result.notified;
      } else {
        failure ??= result.reason;
      }
    }
    if (failure !== null && recipients === 0) return { status: 'failed', reason: failure };
    return { status: 'sent', recipients, notified };
  }

  private unsendableReason(pass: Pass): string | null {
    if (!this.client.configured) return NOT_CONFIGURED_REASON;
    if (pass.status !== 'Published' || pass.deletedTime !== null) {
      return 'The pass is not Published, so it has no WalletB class';
    }
    return null;
  }

  /** The Active holders among `holderIds` whose own object is saved in a wallet now. */
  private savedHolderObjects(
    pass: Pass,
    holderIds: readonly string[],
  ): Promise<Pick<Holder, 'id' | 'serialNumber'>[]> {
    if (holderIds.length === 0) return Promise.resolve([]);
    return this.dataSource
      .createQueryBuilder()
      .select('h.id', 'id')
      .addSelect('h.serial_number', 'serialNumber')
      .from('holder', 'h')
      .innerJoin('wallet_b_object', 'o', 'o.holder_id = h.id AND o.deleted_time IS NULL')
      .where('h.workspace_id = :workspaceId AND h.pass_id = :passId', {
        workspaceId: pass.workspaceId,
        passId: pass.id,
      })
      .andWhere("h.status = 'Active' AND h.id IN (:...holderIds)", { holderIds })
      .orderBy('h.id')
      .getRawMany<Pick<Holder, 'id' | 'serialNumber'>>();
  }

  /** One message to one resource (the class or a holder's object), once per message id. */
  private async deliverMessage(
    pass: Pass,
    input: WalletBMessageInput,
    target: MessageTarget,
  ): Promise<WalletBSendResult> {
    const reservation = await this.reserve(pass, input.id, target.recipient);
    if (reservation === null) return { status: 'failed', reason: 'The pass no longer exists' };
    const sent = (messageType: MessageType): WalletBSendResult => ({
      status: 'sent',
      recipients: reservation.recipients,
      notified: messageType === 'TEXT_AND_NOTIFY',
    });
    if (reservation.state === 'sent') return sent(reservation.messageType);

    if (reservation.state === 'pending') {
      // An earlier call stopped between asking Google and recording the answer.
      const current = await target.messagesAtGoogle();
      if (!current.ok && current.kind !== 'not-found') {
        return { status: 'failed', reason: current.reason };
      }
      const added = current.ok
        ? current.value.messages?.find((message) => message.id === input.id)
        : undefined;
      if (added !== undefined) {
        await this.finishMessage(reservation.id, 'sent', added.messageType);
        return sent(added.messageType);
      }
    }

    let messageType = reservation.messageType;
    const message = (type: MessageType) => ({
      id: input.id,
      header: input.header,
      body: input.body,
      messageType: type,
    });
    let result = await target.add(message(messageType));
    if (!result.ok && result.kind === 'quota-exceeded' && messageType === 'TEXT_AND_NOTIFY') {
      messageType = 'TEXT';
      result = await target.add(message(messageType));
    }
    await this.finishMessage(reservation.id, result.ok ? 'sent' : 'failed', messageType);
    return result.ok ? sent(messageType) : { status: 'failed', reason: result.reason };
  }

  private async finishMessage(
    id: string,
    state: 'sent' | 'failed',
    messageType: MessageType,
  ): Promise<void> {
    await this.dataSource
      .getRepository(WalletBMessage)
      .update({ id }, { state, messageType, updatedTime: new Date() });
  }

  /**
   * With the pass row locked (so concurrent sends for one pass count each other): the message's
   * record for this recipient if it was sent or is pending already, else a pending record with
   * the type to send and the recipients (the class: googleActiveCount now; an object: 1).
   * Pending messages count against the limit too: one that is out may well be delivered.
   */
  private async reserve(
    pass: Pass,
    messageId: string,
    recipient: string,
  ): Promise<WalletBMessage | null> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await lockPassRow(manager, pass.id);
      if (locked === null) return null;
      const existing = await manager.findOneBy(WalletBMessage, {
        passId: pass.id,
        messageId,
        recipient,
      });
      if (existing !== null && existing.state !== 'failed') return existing;

      const now = new Date();
      const notifying = await manager.countBy(WalletBMessage, {
        passId: pass.id,
        recipient,
        messageType: 'TEXT_AND_NOTIFY',
        state: In(['pending', 'sent']),
        createdTime: MoreThan(new Date(now.getTime() - NOTIFYING_WINDOW_MS)),
      });
      const record: WalletBMessage = {
        id: existing?.id ?? newId(),
        workspaceId: pass.workspaceId,
        passId: pass.id,
        messageId,
        recipient,
        messageType: notifying < NOTIFYING_MESSAGES_PER_DAY ? 'TEXT_AND_NOTIFY' : 'TEXT',
        state: 'pending',
        recipients: recipient === WALLET_B_CLASS_RECIPIENT ? locked.googleActiveCount : 1,
        createdTime: now,
        updatedTime: now,
      };
      if (existing === null) await manager.insert(WalletBMessage, record);
      else await manager.update(WalletBMessage, { id: existing.id }, record);
      return record;
    });
  }

  /** Google calls back over HTTPS only, so a plain-HTTP base URL (development) sets none. */
  private callbackUrl(): string | undefined {
    const base = this.config.publicBaseUrl;
    return base.startsWith('https://') ? `${base}/callbacks/wallet-b` : undefined;
  }
}
