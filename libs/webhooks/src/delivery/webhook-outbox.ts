import { EntityRows, newId, ServiceEvents, type RecordedEvent } from '@app/core';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
  type TransactionStartEvent,
} from 'typeorm';
import { WebhookDelivery } from '../entities/webhook-delivery.entity';
import { WebhookEndpoint } from '../entities/webhook-endpoint.entity';
import { isWebhookEventType } from '../webhook-events';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';

/** A webhook's body, frozen when the event is recorded. */
export interface WebhookBody {
  id: string;
  type: string;
  timestamp: string;
  workspaceId: string;
  data: unknown;
}

/** What one open transaction has recorded so far. */
interface OpenTransaction {
  /** Deliveries not inserted yet: written in multi-row INSERTs just before the commit. */
  rows: WebhookDelivery[];
  /** The workspaces' subscribed endpoints as this transaction first read them. */
  endpoints: Map<string, Pick<WebhookEndpoint, 'id' | 'events'>[]>;
  /** Whether it wrote deliveries (the worker is kicked once it committed). */
  wrote: boolean;
}

/** Rows per multi-row INSERT. */
const INSERT_CHUNK = 500;

/**
 * The transactional outbox. Listens to every recorded service event and, in the transaction of
 * the change that caused it, writes one delivery per enabled endpoint of the workspace that
 * subscribed to its type: the event and the change commit or roll back together. Once that
 * transaction commits, the delivery worker is kicked (here and, through Redis, in every worker
 * process), so delivery starts at once, not at the next poll.
 *
 * Inside a transaction, the endpoints of a workspace are read once and the deliveries are
 * buffered, then inserted in multi-row INSERTs just before the commit (TypeORM's
 * `beforeTransactionCommit`, still inside the transaction): an import of 10,000 holders costs
 * about twenty statements, not 20,000. The after-commit kick is the same one rule for every
 * caller, whatever transaction it records in (`HolderChanges.transaction`, a plain
 * `dataSource.transaction`). A recording outside a transaction is written and kicked at once.
 */
@Injectable()
export class WebhookOutbox implements OnModuleInit, EntitySubscriberInterface {
  private readonly rows: EntityRows<WebhookDelivery>;
  /** Transactions (by query runner) that recorded events and have not ended yet. */
  private readonly open = new WeakMap<QueryRunner, OpenTransaction>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: ServiceEvents,
    private readonly worker: WebhookDeliveryWorker,
  ) {
    this.rows = new EntityRows(dataSource, WebhookDelivery, 'd');
  }

  onModuleInit(): void {
    this.events.listen(async (manager, events) => {
      for (const event of events) await this.record(manager, event);
    });
    // Nest's way to add a TypeORM subscriber that has dependencies.
    this.dataSource.subscribers.push(this);
  }

  /** Queues (or, outside a transaction, writes) the event's deliveries; returns how many. */
  async record(manager: EntityManager, event: RecordedEvent): Promise<number> {
    const type = event.type;
    if (!isWebhookEventType(type)) return 0;
    const runner = manager.queryRunner;
    const open = runner?.isTransactionActive === true ? this.openOf(runner) : undefined;
    let endpoints = open?.endpoints.get(event.workspaceId);
    if (endpoints === undefined) {
      // One indexed read (workspace_id, id) of a handful of rows; subscriptions are filtered
      // here since `events` is a JSON list.
      endpoints = await manager.find(WebhookEndpoint, {
        select: { id: true, events: true },
        where: { workspaceId: event.workspaceId, enabled: true },
      });
      open?.endpoints.set(event.workspaceId, endpoints);
    }
    const subscribed = endpoints.filter((endpoint) => endpoint.events.includes(type));
    if (subscribed.length === 0) return 0;

    const eventId = `msg_${newId().replace(/-/g, '')}`;
    const body: WebhookBody = {
      id: eventId,
      type,
      timestamp: event.time.toISOString(),
      workspaceId: event.workspaceId,
      data: event.data,
    };
    const text = JSON.stringify(body);
    const now = new Date();
    const deliveries = subscribed.map((endpoint) =>
      Object.assign(new WebhookDelivery(), {
        id: newId(),
        workspaceId: event.workspaceId,
        endpointId: endpoint.id,
        eventId,
        eventType: type,
        body: text,
        status: 'Pending',
        nextAttemptTime: now,
        lastStatusCode: null,
        lastError: null,
        leaseUntil: null,
        leasedBy: null,
        attempts: 0,
        createdTime: now,
        updatedTime: now,
        finishedTime: null,
      } satisfies WebhookDelivery),
    );
    if (open !== undefined) {
      open.rows.push(...deliveries);
      return deliveries.length;
    }
    await this.insert(manager, deliveries);
    this.worker.kick();
    return deliveries.length;
  }

  /**
   * A transaction starting inside one that recorded events (a savepoint): what the outer one
   * recorded so far is written first, so that rolling back the inner one cannot lose it.
   */
  async beforeTransactionStart(event: TransactionStartEvent): Promise<void> {
    await this.flush(event.queryRunner);
  }

  /** Still inside the transaction (or savepoint): its deliveries are written now. */
  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    await this.flush(event.queryRunner);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // Fired for savepoints too: only the outermost commit makes the deliveries visible.
    if (event.queryRunner.isTransactionActive) return;
    const open = this.open.get(event.queryRunner);
    this.open.delete(event.queryRunner);
    if (open?.wrote === true) this.worker.kick();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const open = this.open.get(event.queryRunner);
    if (open === undefined) return;
    // A savepoint rolled back: the events recorded since the last flush went with it.
    if (event.queryRunner.isTransactionActive) open.rows = [];
    else this.open.delete(event.queryRunner);
  }

  private openOf(runner: QueryRunner): OpenTransaction {
    let open = this.open.get(runner);
    if (open === undefined) {
      open = { rows: [], endpoints: new Map(), wrote: false };
      this.open.set(runner, open);
    }
    return open;
  }

  private async flush(runner: QueryRunner): Promise<void> {
    const open = this.open.get(runner);
    if (open === undefined || open.rows.length === 0) return;
    const rows = open.rows;
    open.rows = [];
    await this.insert(runner.manager, rows);
    open.wrote = true;
  }

  private async insert(manager: EntityManager, rows: WebhookDelivery[]): Promise<void> {
    for (let at = 0; at < rows.length; at += INSERT_CHUNK) {
      await this.rows.insert(manager, rows.slice(at, at + INSERT_CHUNK));
    }
  }
}
