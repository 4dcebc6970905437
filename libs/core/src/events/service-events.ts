import { Global, Injectable, Module } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export type WalletPlatform = 'WalletA' | 'WalletB';

/** A device (WalletA) or a Google object (WalletB) started or stopped holding a pass. */
export interface PassInstallData {
  passId: string;
  /** The holder whose personal pass it is; null: the shared pass. */
  holderId: string | null;
  platform: WalletPlatform;
}

/**
 * What happened in a workspace, as the code that made it happen tells it. The `data` of
 * `notification.finished` and `holder.*` is the resource as the API shows it.
 */
export type ServiceEvent =
  | { type: 'pass.installed' | 'pass.uninstalled'; data: PassInstallData }
  | { type: 'link.clicked'; data: { passId: string } }
  | {
      type: 'notification.finished';
      /** Its pass, beside `data`: the data is the Notification exactly as the API shows it. */
      passId: string;
      data: Record<string, unknown>;
    }
  | {
      type: 'holder.created' | 'holder.updated' | 'holder.voided';
      data: { passId: string } & Record<string, unknown>;
    };

export type ServiceEventType = ServiceEvent['type'];

/** The pass an event concerns. */
export function passOfEvent(event: ServiceEvent): string {
  return event.type === 'notification.finished' ? event.passId : event.data.passId;
}

/** An event with where and when it happened. */
export type RecordedEvent = ServiceEvent & { workspaceId: string; time: Date };

/**
 * Runs inside the transaction of the change that caused the events: what it writes commits or
 * rolls back with that change, so an event is never lost nor invented. It must only write
 * through `manager` and never call the outside world. Events recorded together (a batch of
 * device registrations) come in one call, so a follower can write them in one statement.
 */
export type ServiceEventListener = (
  manager: EntityManager,
  events: readonly RecordedEvent[],
) => Promise<void>;

/**
 * The one place where changes announce themselves to whatever follows them (webhooks' outbox,
 * per-day statistics): the code that changes something calls `record` in its transaction,
 * the followers `listen` once at start-up, in every process that may record (API and worker).
 */
@Injectable()
export class ServiceEvents {
  private readonly listeners: ServiceEventListener[] = [];

  listen(listener: ServiceEventListener): void {
    this.listeners.push(listener);
  }

  async record(manager: EntityManager, event: RecordedEvent): Promise<void> {
    await this.recordAll(manager, [event]);
  }

  async recordAll(manager: EntityManager, events: readonly RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const listener of this.listeners) await listener(manager, events);
  }
}

@Global()
@Module({ providers: [ServiceEvents], exports: [ServiceEvents] })
export class ServiceEventsModule {}
