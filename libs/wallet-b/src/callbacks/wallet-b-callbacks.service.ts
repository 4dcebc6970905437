import {
  APP_CONFIG,
  isUniqueViolation,
  MalformedRequestError,
  newId,
  ServiceEvents,
  UnavailableError,
  type AppConfig,
} from '@app/core';
import { Holder, lockPassRow, moveHolderCounters, type Pass } from '@app/passes';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, IsNull, Not, type EntityManager } from 'typeorm';
import { holderSerialFromObjectId, passIdFromClassId } from '../google/pass-resources';
import { WalletBObject } from '../objects/wallet-b-object.entity';
import {
  callbackEnvelope,
  CallbackVerificationError,
  verifyCallback,
  type CallbackEvent,
  type RootSigningKey,
} from './ecv2-signing-only';
import { GoogleRootKeys, RootKeysUnavailableError } from './root-keys';
import { WalletBCallback } from './wallet-b-callback.entity';

/** What a verified callback did: `applied`, or why it changed nothing. */
export type CallbackOutcome =
  | { result: 'applied'; event: CallbackEvent }
  | { result: 'repeated' | 'unknown-pass' | 'no-change'; event: CallbackEvent };

/**
 * Google's save/delete callbacks: verified (ECv2SigningOnly, see ecv2-signing-only.ts), then
 * applied once per nonce. `save` records the holder's object and moves googleIssuedCount
 * (first save of the object only) and googleActiveCount (when it was not active) up with the
 * totals; `del` moves the active counts down when the object was active. The object row, the
 * nonce and the counters change in one transaction that first locks the pass row. A personal
 * holder's own object (`<issuer id>.<serial>`) also moves that holder's googleInstalledCount.
 */
@Injectable()
export class WalletBCallbacksService {
  private readonly logger = new Logger('WalletBCallbacks');

  constructor(
    private readonly dataSource: DataSource,
    private readonly rootKeys: GoogleRootKeys,
    private readonly events: ServiceEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async receive(body: unknown): Promise<CallbackOutcome> {
    const event = await this.verify(body);
    const outcome = await this.apply(event);
    this.logger.log(
      { eventType: event.eventType, objectId: event.objectId, result: outcome.result },
      'WalletB callback',
    );
    return outcome;
  }

  /** 400 when the callback does not verify; 503 when Google's keys cannot be had. */
  async verify(body: unknown, now = Date.now()): Promise<CallbackEvent> {
    const check = (rootKeys: RootSigningKey[]) =>
      verifyCallback(body, { rootKeys, recipientId: this.config.walletB.issuerId, now });
    try {
      // Shape first: junk must not make us fetch Google's keys.
      callbackEnvelope(body);
      try {
        return check(await this.rootKeys.current());
      } catch (error) {
        if (!(error instanceof CallbackVerificationError) || !error.rootKey) throw error;
        // Google may have rotated its root keys since we fetched them.
        const fresh = await this.rootKeys.refetch();
        if (fresh === null) throw error;
        return check(fresh);
      }
    } catch (error) {
      if (error instanceof RootKeysUnavailableError) throw new UnavailableError(error.message);
      if (error instanceof CallbackVerificationError) {
        throw new MalformedRequestError('The WalletB callback does not verify', {
          reason: error.message,
        });
      }
      throw error;
    }
  }

  private async apply(event: CallbackEvent): Promise<CallbackOutcome> {
    // Classes of other issuers or not of ours, and passes we do not have: answered 200 so Google
    // does not retry what can never apply, and changed nothing.
    const passId = passIdFromClassId(this.config.walletB.issuerId, event.classId);
    if (passId === null) return { result: 'unknown-pass', event };

    return this.dataSource.transaction(async (manager) => {
      const pass = await lockPassRow(manager, passId);
      if (pass === null) return { result: 'unknown-pass' as const, event };
      const now = new Date();
      try {
        await manager.insert(WalletBCallback, {
          nonce: event.nonce,
          eventType: event.eventType,
          objectId: event.objectId,
          passId,
          receivedTime: now,
          expiresTime: new Date(event.expTimeMillis),
        });
      } catch (error) {
        if (isUniqueViolation(error)) return { result: 'repeated' as const, event };
        throw error;
      }

      const existing = await manager.findOneBy(WalletBObject, { objectId: event.objectId });
      // Google's object ids are unique per issuer: one filed under another pass is not this one.
      if (existing !== null && existing.passId !== passId) {
        return { result: 'no-change' as const, event };
      }
      if (event.eventType === 'save') {
        if (existing === null) {
          const holderId = await this.holderOf(manager, passId, event.objectId);
          await manager.insert(WalletBObject, {
            id: newId(),
            objectId: event.objectId,
            workspaceId: pass.workspaceId,
            passId,
            holderId,
            savedTime: now,
            deletedTime: null,
            createdTime: now,
            updatedTime: now,
          });
          await this.moveCounters(manager, pass, holderId, now, { issued: true, active: 1 });
          return { result: 'applied' as const, event };
        }
        const restored = await manager.update(
          WalletBObject,
          { id: existing.id, deletedTime: Not(IsNull()) },
          { deletedTime: null, savedTime: now, updatedTime: now },
        );
        if (restored.affected !== 1) return { result: 'no-change' as const, event };
        await this.moveCounters(manager, pass, existing.holderId, now, {
          issued: false,
          active: 1,
        });
        return { result: 'applied' as const, event };
      }

      // del: only an object we know as active moves the counters.
      if (existing === null) return { result: 'no-change' as const, event };
      const removed = await manager.update(
        WalletBObject,
        { id: existing.id, deletedTime: IsNull() },
        { deletedTime: now, updatedTime: now },
      );
      if (removed.affected !== 1) return { result: 'no-change' as const, event };
      await this.moveCounters(manager, pass, existing.holderId, now, {
        issued: false,
        active: -1,
      });
      return { result: 'applied' as const, event };
    });
  }

  /** The holder of the pass whose own object this is (its id names the serial), or null. */
  private async holderOf(
    manager: EntityManager,
    passId: string,
    objectId: string,
  ): Promise<string | null> {
    const serialNumber = holderSerialFromObjectId(this.config.walletB.issuerId, objectId);
    if (serialNumber === null) return null;
    const holder = await manager.findOne(Holder, {
      where: { serialNumber, passId },
      select: { id: true },
    });
    return holder?.id ?? null;
  }

  /**
   * The pass's google counters, the holder's installed count (in SQL, so concurrent callbacks
   * of one holder's object each count) and the `pass.installed`/`pass.uninstalled` event: only
   * called when an object really became active or inactive.
   */
  private async moveCounters(
    manager: EntityManager,
    pass: Pass,
    holderId: string | null,
    time: Date,
    change: { issued: boolean; active: 1 | -1 },
  ): Promise<void> {
    await moveHolderCounters(manager, pass.id, 'google', change);
    if (holderId !== null) {
      await manager.update(
        Holder,
        { id: holderId },
        { googleInstalledCount: () => `google_installed_count ${change.active > 0 ? '+' : '-'} 1` },
      );
    }
    await this.events.record(manager, {
      type: change.active > 0 ? 'pass.installed' : 'pass.uninstalled',
      workspaceId: pass.workspaceId,
      time,
      data: { passId: pass.id, holderId, platform: 'WalletB' },
    });
  }
}
