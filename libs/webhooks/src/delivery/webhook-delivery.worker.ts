import { APP_CONFIG, LeasedWorker, sqlDialect, WorkerScheduler, type AppConfig } from '@app/core';
import { SecretSealer, type SecretBox } from '@app/wallet-a';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource, In, IsNull, LessThan, LessThanOrEqual } from 'typeorm';
import { WebhookDelivery } from '../entities/webhook-delivery.entity';
import { WebhookEndpoint } from '../entities/webhook-endpoint.entity';
import { nextAttemptTime, type RetryRules } from './retry-schedule';
import { WEBHOOK_SECRET_PURPOSE, webhookHeaders } from './signature';
import { WebhookSender, type SendOutcome } from './webhook-sender';

/** Deliveries in flight at once in one process. */
export const DELIVERY_CONCURRENCY = 64;
/**
 * Deliveries in flight at once to one endpoint in one process: a slow or dead endpoint holds at
 * most a quarter of the slots, the others keep flowing.
 */
export const ENDPOINT_CONCURRENCY = 16;
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
  private readonly perEndpoint = new Map<string, number>();
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

  /** Claims as many due deliveries as there are free slots and starts them; returns how many. */
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

  /**
   * Due deliveries of enabled endpoints, oldest due first, skipping endpoints that have all
   * their slots in this process, claimed one by one (another worker may win some).
   */
  private async claimDue(
    limit: number,
  ): Promise<{ delivery: WebhookDelivery; endpoint: WebhookEndpoint }[]> {
    const now = new Date();
    const at = sqlDialect(this.dataSource).writeDate(now);
    const busy = [...this.perEndpoint].filter(([, n]) => n >= ENDPOINT_CONCURRENCY);
    const query = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .innerJoin(WebhookEndpoint, 'e', 'e.id = d.endpoint_id AND e.enabled = :enabled', {
        enabled: true,
      })
      .where('d.status = :pending', { pending: 'Pending' })
      .andWhere(
        '((d.lease_until IS NULL AND d.next_attempt_time <= :now) OR d.lease_until < :now)',
        { now: at },
      )
      .orderBy('d.next_attempt_time', 'ASC')
      .limit(limit * 2);
    if (busy.length > 0) {
      query.andWhere('d.endpoint_id NOT IN (:...busy)', { busy: busy.map(([id]) => id) });
    }
    const candidates = await query.getMany();
    if (candidates.length === 0) return [];
    const endpoints = new Map(
      (
        await this.dataSource.getRepository(WebhookEndpoint).findBy({
          id: In([...new Set(candidates.map((candidate) => candidate.endpointId))]),
        })
      ).map((endpoint) => [endpoint.id, endpoint]),
    );
    // Within the endpoints' slots, then claimed together.
    const load = new Map(this.perEndpoint);
    const chosen: WebhookDelivery[] = [];
    for (const candidate of candidates) {
      if (chosen.length >= limit) break;
      const endpointLoad = load.get(candidate.endpointId) ?? 0;
      if (!endpoints.has(candidate.endpointId) || endpointLoad >= ENDPOINT_CONCURRENCY) continue;
      load.set(candidate.endpointId, endpointLoad + 1);
      chosen.push(candidate);
    }
    const claimed = await this.lease.claimAll(
      chosen.map((candidate) => candidate.id),
      [
        { status: 'Pending', leaseUntil: IsNull(), nextAttemptTime: LessThanOrEqual(now) },
        { status: 'Pending', leaseUntil: LessThan(now) },
      ],
    );
    return claimed.map((delivery) => ({ delivery, endpoint: endpoints.get(delivery.endpointId)! }));
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
