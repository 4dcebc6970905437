import { newId } from '@app/core';
import { lockPassRow, type Holder, type Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { DataSource, In, MoreThan } from 'typeorm';
import { WalletBClassesService } from '../classes/wallet-b-classes.service';
import {
  GoogleWalletClient,
  NOT_CONFIGURED_REASON,
  type GoogleResult,
} from '../google/google-wallet-client';
import { classIdFor, holderObjectId } from '../google/pass-resources';
import type { MessageType, WalletMessage } from '../google/wallet-objects.types';
import { NOTIFYING_MESSAGES_PER_DAY, NOTIFYING_WINDOW_MS } from './notification-limit';
import { WALLET_B_CLASS_RECIPIENT, WalletBMessage } from './wallet-b-message.entity';

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
 * googleActiveCount when it was sent) or to chosen holders' objects (`recipients` = how many);
 * `notified` false when Google's limit of notifying messages was reached and the message went
 * out as TEXT (shown, no notification).
 */
export type WalletBSendResult =
  { status: 'sent'; recipients: number; notified: boolean } | { status: 'failed'; reason: string };

/**
 * Called before each call to Google with the most that call may take (its tries included):
 * a worker makes sure its lease lasts that long, and answers false when it lost the lease, after
 * which nothing more is sent. A call that outlived the lease could be made again by the worker
 * that takes the job over, and a message sent twice notifies holders twice.
 */
export type KeepLease = (needMs: number) => Promise<boolean>;

const noLease: KeepLease = () => Promise.resolve(true);

export const LEASE_LOST_REASON = 'The worker lost its lease; another one goes on';

/**
 * Messages to holders at Google, through the notifications worker's WalletB channel: to every
 * holder (the pass's class) or to chosen holders (their own objects), once per message id, as
 * notifying messages within Google's daily limit and as plain text beyond it.
 */
@Injectable()
export class WalletBMessagesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly client: GoogleWalletClient,
    private readonly classes: WalletBClassesService,
  ) {}

  /**
   * Adds a message to the pass's class: every holder sees it on the back of the pass. It is
   * sent as TEXT_AND_NOTIFY (holders are notified) while the pass has had fewer than Google's
   * limit of notifying messages in the last 24 hours, as TEXT (no notification) beyond it, or
   * when Google answers that the limit is reached. Reported `sent` only when Google accepted it.
   * A message id is sent once per pass: a repeated call (a caller retrying after a crash) gets
   * the first call's result, and one whose first call never finished is looked up at Google
   * before it is sent again.
   */
  async sendMessage(
    pass: Pass,
    input: WalletBMessageInput,
    keep: KeepLease = noLease,
  ): Promise<WalletBSendResult> {
    const unsendable = this.unsendableReason(pass);
    if (unsendable !== null) return { status: 'failed', reason: unsendable };
    const classId = classIdFor(this.classes.issuerId, pass.id);
    const type = await this.classes.classTypeOf(pass);
    return this.deliverMessage(pass, input, {
      recipient: WALLET_B_CLASS_RECIPIENT,
      messagesAtGoogle: () => this.call(keep, 1, () => this.client.getClass(type, classId)),
      add: async (message) => {
        const added = await this.call(keep, 1, () =>
          this.client.addClassMessage(type, classId, message),
        );
        if (added.ok || added.kind !== 'not-found') return added;
        // A class Google does not have yet (its sync is pending) is created first.
        const synced = await this.call(keep, 2, () => this.classes.syncClass(pass));
        if (!synced.ok) return synced;
        return this.call(keep, 1, () => this.client.addClassMessage(type, classId, message));
      },
    });
  }

  /**
   * Adds a message to the objects of chosen holders only (`holderIds`): each
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
    keep: KeepLease = noLease,
  ): Promise<WalletBSendResult> {
    const unsendable = this.unsendableReason(pass);
    if (unsendable !== null) return { status: 'failed', reason: unsendable };
    const holders = await this.savedHolderObjects(pass, holderIds);
    const type = await this.classes.classTypeOf(pass);
    let recipients = 0;
    let notified = false;
    let failure: string | null = null;
    for (const holder of holders) {
      const objectId = holderObjectId(this.classes.issuerId, holder);
      const result = await this.deliverMessage(pass, input, {
        recipient: holder.id,
        messagesAtGoogle: () => this.call(keep, 1, () => this.client.getObject(type, objectId)),
        add: (message) =>
          this.call(keep, 1, () => this.client.addObjectMessage(type, objectId, message)),
      });
      if (result.status === 'failed' && result.reason === LEASE_LOST_REASON) return result;
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

  /** `calls` calls to Google, made only once the caller's lease outlasts them. */
  private async call<T>(
    keep: KeepLease,
    calls: number,
    work: () => Promise<GoogleResult<T>>,
  ): Promise<GoogleResult<T>> {
    if (!(await keep(calls * this.client.callBudgetMs))) {
      return { ok: false, kind: 'unavailable', reason: LEASE_LOST_REASON };
    }
    return work();
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
    // The worker that took over owns the record now: it stays as that worker leaves it.
    if (!result.ok && result.reason === LEASE_LOST_REASON) {
      return { status: 'failed', reason: result.reason };
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
}
