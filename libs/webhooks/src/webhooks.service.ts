import {
  APP_CONFIG,
  ConflictError,
  InvalidInputError,
  NotFoundError,
  paginate,
  sqlDialect,
  stampCreated,
  stampUpdated,
  type AppConfig,
  type Page,
  type PageQuery,
} from '@app/core';
import { SecretSealer, type SecretBox } from '@app/wallet-a';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { webhookUrlProblem } from './delivery/destination';
import { newWebhookSecret, WEBHOOK_SECRET_PURPOSE } from './delivery/signature';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook-input.dto';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** Endpoints one workspace may have: each event is written once per subscribed endpoint. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

/**
 * A workspace's webhook endpoints. Rules:
 *
 * - The URL is checked when saved (scheme, and every address its host resolves to now) and
 *   again by every delivery as it connects (delivery/destination.ts).
 * - The secret is made here, returned once by create, and kept sealed (SecretSealer).
 * - At most {@link MAX_ENDPOINTS_PER_WORKSPACE} endpoints per workspace (409 beyond).
 * - Deleting an endpoint deletes its row only: its pending deliveries are never sent, and
 *   retention purges its deliveries later.
 */
@Injectable()
export class WebhooksService {
  private readonly secrets: SecretBox;

  constructor(
    private readonly dataSource: DataSource,
    private readonly worker: WebhookDeliveryWorker,
    sealer: SecretSealer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.secrets = sealer.box(WEBHOOK_SECRET_PURPOSE);
  }

  async create(
    workspaceId: string,
    actorId: string,
    input: CreateWebhookDto,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    const endpoint = stampCreated(
      Object.assign(new WebhookEndpoint(), {
        workspaceId,
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        secretSealed: this.secrets.seal(secret),
      }),
      actorId,
    );
    await this.dataSource.transaction(async (manager) => {
      await this.lockWorkspace(manager, workspaceId);
      const count = await manager.countBy(WebhookEndpoint, { workspaceId });
      if (count >= MAX_ENDPOINTS_PER_WORKSPACE) {
        throw new ConflictError(
          `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhooks; delete one first`,
          { limit: MAX_ENDPOINTS_PER_WORKSPACE },
        );
      }
      await manager.insert(WebhookEndpoint, endpoint);
    });
    return { endpoint, secret };
  }

  list(workspaceId: string, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    const builder = this.dataSource
      .getRepository(WebhookEndpoint)
      .createQueryBuilder('webhook')
      .where('webhook.workspace_id = :workspaceId', { workspaceId });
    return paginate(builder, query);
  }

  async get(workspaceId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.dataSource
      .getRepository(WebhookEndpoint)
      .findOneBy({ id, workspaceId });
    if (endpoint === null) throw new NotFoundError('Webhook', id);
    return endpoint;
  }

  async update(
    workspaceId: string,
    actorId: string,
    id: string,
    input: UpdateWebhookDto,
  ): Promise<WebhookEndpoint> {
    // Unknown ids are a 404 before the URL's DNS check; the check runs outside the transaction.
    await this.get(workspaceId, id);
    if (input.url !== undefined) await this.checkUrl(input.url);
    const changes: Partial<WebhookEndpoint> = {
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: input.events } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    };
    // Read again, locked, and written in one transaction: a DELETE that came in meanwhile is a
    // 404, never a 200 with the body of a row that is gone.
    const { updated, enabling } = await this.dataSource.transaction(async (manager) => {
      const query = manager
        .getRepository(WebhookEndpoint)
        .createQueryBuilder('webhook')
        .where('webhook.id = :id AND webhook.workspace_id = :workspaceId', { id, workspaceId });
      if (sqlDialect(manager.connection).rowLocks) query.setLock('pessimistic_write');
      const endpoint = await query.getOne();
      if (endpoint === null) throw new NotFoundError('Webhook', id);
      const enabling = input.enabled === true && !endpoint.enabled;
      const updated = stampUpdated(Object.assign(endpoint, changes), actorId);
      await manager.update(
        WebhookEndpoint,
        { id, workspaceId },
        { ...changes, updatedTime: updated.updatedTime, updatedBy: updated.updatedBy },
      );
      return { updated, enabling };
    });
    // Its deliveries that waited while it was disabled go out now.
    if (enabling) this.worker.kick();
    return updated;
  }

  /**
   * Deletes the endpoint row only: one row, whatever its history. Its deliveries are never
   * claimed again (the worker joins existing, enabled endpoints) and retention purges them, any
   * status, in bounded batches (webhooks.module.ts), so a request never locks a month of rows.
   */
  async remove(workspaceId: string, id: string): Promise<void> {
    const deleted = await this.dataSource
      .getRepository(WebhookEndpoint)
      .delete({ id, workspaceId });
    if (deleted.affected === 0) throw new NotFoundError('Webhook', id);
  }

  /** An endpoint's deliveries, newest first. */
  async deliveries(
    workspaceId: string,
    id: string,
    query: PageQuery,
  ): Promise<Page<WebhookDelivery>> {
    const endpoint = await this.get(workspaceId, id);
    const builder = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('delivery')
      .where('delivery.endpoint_id = :endpointId AND delivery.workspace_id = :workspaceId', {
        endpointId: endpoint.id,
        workspaceId,
      });
    return paginate(builder, query);
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await webhookUrlProblem(url, this.config.webhooks);
    if (problem !== null) throw new InvalidInputError({ url: problem });
  }

  /** Creates of one workspace take turns, so two at once cannot pass the limit together. */
  private async lockWorkspace(manager: EntityManager, workspaceId: string): Promise<void> {
    if (!sqlDialect(manager.connection).rowLocks) return;
    await manager.query('SELECT id FROM workspace WHERE id = ? FOR UPDATE', [workspaceId]);
  }
}
