import { APP_CONFIG, LeasedWorker, sqlDialect, WorkerScheduler, type AppConfig } from '@app/core';
import { SecretSealer, type SecretBox } from '@app/wallet-a';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource, IsNull, LessThan, LessThanOrEqual } from 'typeorm';
import { WebhookDelivery } from '../entities/webhook-delivery.entity';
import { WebhookEndpoint } from '../entities/webhook-endpoint.entity';
import { nextAttemptTime, type RetryRules } from './retry-schedule';
import { WEBHOOK_SECRET_PURPOSE, webhookHeaders } from './signature';
import { WebhookSender, type SendOutcome } from './webhook-sender';

/** Deliveries in flight at once in one process. */
export const DELIVERY_CONCURRENCY = 64;
/** The most deliveries in flight at once to one endpoint in one process (a healthy endpoint). */
export const ENDPOINT_CONCURRENCY = 16;
/**
 * What an endpoint this process has not delivered to yet may have in flight: a dead endpoint
 * learns it is failing before it holds many slots, a live one doubles it with every success.
 */
export const NEW_ENDPOINT_CONCURRENCY = 4;
/**
 * What an endpoint whose last attempt here failed may have in flight: one probe, as a circuit
 * breaker's half-open state; a success doubles it again up to {@link ENDPOINT_CONCURRENCY}.
 */
export const FAILING_ENDPOINT_CONCURRENCY = 1;
/**
 * The slots endpoints not yet proven healthy (below {@link ENDPOINT_CONCURRENCY}) may hold
 * together: the other half stays for endpoints that answer, however many endpoints are failing.
 */
export const UNPROVEN_SLOTS = DELIVERY_CONCURRENCY / 2;
/** The shortest sleep before a due delivery is looked for again (no busy loop on a race). */
const MIN_WAKE_MS = 20;

/**
 * Sends the outbox's deliveries. Any number of workers share them: a tick claims due deliveries
 * by compare-and-set under a lease (a worker that dies mid-request leaves its claims to others
 * once the lease runs out; the event then arrives again with the same `webhook-id`: at least
 * once), starts up to {@link DELIVERY_CONCURRENCY} requests without waiting for them, and
 * returns; each request that ends records its outcome and frees its slot for the next tick. No
 * transaction is open during a request. A 2xx delivers; anything else is retried with backoff
 * (retry-schedule.ts) until the retry window closes (`Failed`). Deliveries of a disabled
 * endpoint wait (not claimed) until it is enabled again; those of a deleted one are never
 * claimed, and retention deletes them (webhooks.module.ts).
 */
@Injectable()
export class WebhookDeliveryWorker
  extends LeasedWorker<WebhookDelivery>
  implements BeforeApplicationShutdown
{
  private readonly inFlight = new Set<Promise<void>>();
  /** Delivered outcomes waiting to be written, together (see {@link recordDelivered}). */
  private delivered: {
    id: string;
    statusCode: number;
    written: () => void;
    failed: (error: unknown) => void;
  }[] = [];
  private writingDelivered = false;
  /** Deliveries in flight per endpoint in this process. */
  private readonly perEndpoint = new Map<string, number>();
  /**
   * Per endpoint, how many it may have in flight here ({@link windowOf}): one after a failed
   * attempt, doubled by each success. One small entry per endpoint delivered to since start.
   */
  private readonly windows = new Map<string, number>();
  /** The endpoint served first at the last claim: the next starts after it (round robin). */
  private rotation = '';
  private readonly retry: RetryRules;
  private readonly secrets: SecretBox;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    sealer: SecretSealer,
    @Inject(APP_CONFIG) config: AppConfig,
    scheduler: WorkerScheduler,
  ) {
    super('WebhookDelivery', scheduler, WebhookDelivery, { status: 'Pending' });
    this.retry = config.webhooks;
    this.secrets = sealer.box(WEBHOOK_SECRET_PURPOSE);
  }

  /** Claims due deliveries for the free slots, each due endpoint its share; starts them. */
  async tick(): Promise<number> {
    const free = DELIVERY_CONCURRENCY - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await this.claimDue(free);
    for (const { delivery, endpoint } of claimed) this.start(delivery, endpoint);
    if (claimed.length === 0 && this.inFlight.size === 0) await this.wakeForNextDue();
    return claimed.length;
  }

  async beforeApplicationShutdown(): Promise<void> {
    // The scheduler stops the ticks; the requests under way end within WEBHOOK_TIMEOUT_MS.
    await Promise.all([...this.inFlight]);
  }

  /** How many deliveries an endpoint may have in flight in this process now. */
  private windowOf(endpointId: string): number {
    return this.windows.get(endpointId) ?? NEW_ENDPOINT_CONCURRENCY;
  }

  /**
   * Fair claiming, so that a slow or dead endpoint never delays the others:
   *
   * 1. The enabled endpoints with due deliveries that have room (not at their window), in
   *    round-robin order: those after the one served first last time come first.
   * 2. The free slots dealt one at a time around them, each up to its window; endpoints not yet
   *    proven healthy share {@link UNPROVEN_SLOTS}.
   * 3. Per endpoint its oldest due deliveries, for its slots (one statement for all), claimed
   *    together by compare-and-set (another worker may win some).
   */
  private async claimDue(
    free: number,
  ): Promise<{ delivery: WebhookDelivery; endpoint: WebhookEndpoint }[]> {
    const now = new Date();
    const at = sqlDialect(this.dataSource).writeDate(now);
    const endpoints = await this.dueEndpoints(at, free);
    if (endpoints.length === 0) return [];
    this.rotation = endpoints[0].id;

    const shares = new Map<string, number>();
    let unproven = 0;
    for (const [id, running] of this.perEndpoint) {
      if (this.windowOf(id) < ENDPOINT_CONCURRENCY) unproven += running;
    }
    let left = free;
    for (let dealt = true; dealt && left > 0;) {
      dealt = false;
      for (const endpoint of endpoints) {
        if (left === 0) break;
        const window = this.windowOf(endpoint.id);
        const share = shares.get(endpoint.id) ?? 0;
        if ((this.perEndpoint.get(endpoint.id) ?? 0) + share >= window) continue;
        if (window < ENDPOINT_CONCURRENCY) {
          if (unproven >= UNPROVEN_SLOTS) continue;
          unproven++;
        }
        shares.set(endpoint.id, share + 1);
        left--;
        dealt = true;
      }
    }
    if (shares.size === 0) return [];

    const ids = await this.dueDeliveryIds(at, shares);
    const claimed = await this.lease.claimAll(ids, [
      { status: 'Pending', leaseUntil: IsNull(), nextAttemptTime: LessThanOrEqual(now) },
      { status: 'Pending', leaseUntil: LessThan(now) },
    ]);
    const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
    return claimed.map((delivery) => ({ delivery, endpoint: byId.get(delivery.endpointId)! }));
  }

  /**
   * Enabled endpoints with a due delivery (never claimed, or whose lease ran out), at most
   * `limit` (more could not get a slot each), leaving out those at their window here. One probe
   * of ix_webhook_delivery_endpoint_due per endpoint, however long its backlog. A lease is only
   * ever taken on a due row, so `next_attempt_time <= now` holds for every claimable one.
   */
  private dueEndpoints(at: Date | string, limit: number): Promise<WebhookEndpoint[]> {
    const full = [...this.perEndpoint]
      .filter(([id, running]) => running >= this.windowOf(id))
      .map(([id]) => id);
    const query = this.dataSource
      .getRepository(WebhookEndpoint)
      .createQueryBuilder('e')
      .where('e.enabled = :enabled', { enabled: true })
      .andWhere(
        'EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.endpoint_id = e.id ' +
          "AND d.status = 'Pending' AND d.next_attempt_time <= :now " +
          'AND (d.lease_until IS NULL OR d.lease_until < :now))',
        { now: at },
      )
      .orderBy('CASE WHEN e.id > :rotation THEN 0 ELSE 1 END', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .setParameter('rotation', this.rotation)
      .limit(limit);
    if (full.length > 0) query.andWhere('e.id NOT IN (:...full)', { full });
    return query.getMany();
  }

  /** Each endpoint's oldest due deliveries, as many as its share: one UNION ALL statement. */
  private async dueDeliveryIds(at: Date | string, shares: Map<string, number>): Promise<string[]> {
    const parts: string[] = [];
    const parameters: unknown[] = [];
    let n = 0;
    for (const [endpointId, share] of shares) {
      parts.push(
        `SELECT id FROM (SELECT d.id FROM webhook_delivery d WHERE d.endpoint_id = ? ` +
          "AND d.status = 'Pending' AND d.next_attempt_time <= ? " +
          `AND (d.lease_until IS NULL OR d.lease_until < ?) ` +
          `ORDER BY d.next_attempt_time LIMIT ${share}) due${n++}`,
      );
      parameters.push(endpointId, at, at);
    }
    const rows = await this.dataSource.query<{ id: string }[]>(
      parts.join(' UNION ALL '),
      parameters,
    );
    return rows.map((row) => row.id);
  }

  private start(delivery: WebhookDelivery, endpoint: WebhookEndpoint): void {
    this.perEndpoint.set(endpoint.id, (this.perEndpoint.get(endpoint.id) ?? 0) + 1);
    const running = this.deliver(delivery, endpoint)
      .catch((error: unknown) => {
        this.logger.error({ err: error, deliveryId: delivery.id }, 'Webhook delivery failed');
      })
      .finally(() => {
        this.inFlight.delete(running);
        const left = (this.perEndpoint.get(endpoint.id) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(endpoint.id);
        else this.perEndpoint.set(endpoint.id, left);
        // A slot is free: take the next due delivery, in this process.
        this.handle.tickHere();
      });
    this.inFlight.add(running);
  }

  /** One attempt, then its outcome: Delivered, back to Pending for a retry, or Failed. */
  private async deliver(delivery: WebhookDelivery, endpoint: WebhookEndpoint): Promise<void> {
    const outcome = await this.attempt(delivery, endpoint);
    this.windows.set(
      endpoint.id,
      outcome.delivered
        ? Math.min(ENDPOINT_CONCURRENCY, this.windowOf(endpoint.id) * 2)
        : FAILING_ENDPOINT_CONCURRENCY,
    );
    const ended = new Date();
    if (outcome.delivered) {
      await this.recordDelivered(delivery.id, outcome.statusCode ?? 200);
      return;
    }
    const next = nextAttemptTime(delivery.attempts, delivery.createdTime, ended, this.retry);
    const result = {
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
    };
    if (next === null) {
      await this.lease.finish(delivery.id, {
        ...result,
        status: 'Failed',
        nextAttemptTime: null,
        finishedTime: ended,
      });
      this.logger.warn(
        { deliveryId: delivery.id, endpointId: endpoint.id, attempts: delivery.attempts },
        `Webhook delivery failed for good: ${outcome.error}`,
      );
      return;
    }
    await this.lease.release(delivery.id, { ...result, nextAttemptTime: next });
  }

  /**
   * Signs and sends. A secret that cannot be opened (the pass-signing key changed) is a failed
   * attempt like any other, so the delivery still ends, `Failed`, when its window closes.
   */
  private async attempt(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
  ): Promise<SendOutcome> {
    let headers: Record<string, string>;
    try {
      const secret = this.secrets.open(endpoint.secretSealed);
      headers = webhookHeaders(secret, delivery.eventId, delivery.body, new Date());
    } catch {
      return { delivered: false, statusCode: null, error: 'the signing secret cannot be opened' };
    }
    return this.sender.send(endpoint.url, headers, delivery.body);
  }

  /**
   * Marks a delivery Delivered. Outcomes that arrive while a write is under way are written
   * together by the next one (one UPDATE per status code), as a database groups commits: a
   * busy endpoint costs a statement per batch, not per event. Resolves once written.
   */
  private recordDelivered(id: string, statusCode: number): Promise<void> {
    return new Promise((written, failed) => {
      this.delivered.push({ id, statusCode, written, failed });
      void this.writeDelivered();
    });
  }

  private async writeDelivered(): Promise<void> {
    if (this.writingDelivered) return;
    this.writingDelivered = true;
    try {
      while (this.delivered.length > 0) {
        const batch = this.delivered.splice(0);
        const byStatus = new Map<number, typeof batch>();
        for (const item of batch) {
          byStatus.set(item.statusCode, [...(byStatus.get(item.statusCode) ?? []), item]);
        }
        for (const [statusCode, items] of byStatus) {
          try {
            await this.lease.finishAll(
              items.map((item) => item.id),
              {
                status: 'Delivered',
                lastStatusCode: statusCode,
                lastError: null,
                nextAttemptTime: null,
                finishedTime: new Date(),
              },
            );
            for (const item of items) item.written();
          } catch (error) {
            for (const item of items) item.failed(error);
          }
        }
      }
    } finally {
      this.writingDelivered = false;
    }
  }

  /**
   * Sleeps until the next delivery of an enabled endpoint falls due (a retry's time, or the end
   * of a lease a dead worker left), so it is not left to the next poll. Computed when this
   * worker is idle; anything due already (a retry due within milliseconds) wakes it at once.
   */
  private async wakeForNextDue(): Promise<void> {
    const next = await this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .innerJoin(WebhookEndpoint, 'e', 'e.id = d.endpoint_id AND e.enabled = :enabled', {
        enabled: true,
      })
      .select(
        'MIN(CASE WHEN d.lease_until IS NULL THEN d.next_attempt_time ELSE d.lease_until END)',
        'next',
      )
      .where('d.status = :pending', { pending: 'Pending' })
      .getRawOne<{ next: Date | string | null }>();
    if (next?.next === null || next?.next === undefined) return;
    const due = sqlDialect(this.dataSource).readDate(next.next).getTime();
    this.handle.wakeAfter(Math.max(MIN_WAKE_MS, due - Date.now()));
  }
}
