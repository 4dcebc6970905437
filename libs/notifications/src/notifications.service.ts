import {
  ConflictError,
  EntityRows,
  InvalidInputError,
  likeContains,
  MUST_NOT_BE_EMPTY,
  MUST_NOT_BE_NULL,
  NotFoundError,
  paginateSql,
  stampCreated,
  stampUpdated,
  type Page,
} from '@app/core';
import { AudiencesService } from '@app/audiences';
import { Holder, PassesService, type Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, IsNull, Repository } from 'typeorm';
import type { ListNotificationsQuery } from './dto/list-notifications.query';
import type { CreateNotificationDto, UpdateNotificationDto } from './dto/notification.dto';
import {
  ACTIVE_STATUSES,
  EDITABLE_STATUSES,
  Notification,
  type NotificationStatus,
} from './entities/notification.entity';
import { nextTarget, type NotificationTarget } from './notification-target';
import { NotificationWorker } from './notification.worker';

/** A scheduled time this far in the past is taken as a mistake rather than "send now". */
const PAST_TOLERANCE_MS = 60_000;

/**
 * The notification rules of the spec's state table: Draft is kept, Processing is sent now,
 * Scheduled at its time; only Draft and Scheduled can change (409 otherwise, also when the
 * worker takes one at the same moment).
 */
@Injectable()
export class NotificationsService {
  private readonly rows: EntityRows<Notification>;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Notification) private readonly notifications: Repository<Notification>,
    private readonly passes: PassesService,
    private readonly audiences: AudiencesService,
    private readonly worker: NotificationWorker,
  ) {
    this.rows = new EntityRows(dataSource, Notification, 'n');
  }

  async create(
    workspaceId: string,
    actorId: string,
    input: CreateNotificationDto,
  ): Promise<Notification> {
    const pass = await this.passes.getEntity(workspaceId, input.passSerialNumber);
    // No status means "send it now" (spec: "If absent at creation, the notification is sent immediately").
    const status = input.status ?? 'Processing';
    const scheduledTime = parseTime(input.scheduledTime);
    checkSendable(status, input.notificationMessage ?? null, scheduledTime);
    const target = nextTarget(input);
    await this.checkAudience(workspaceId, pass, target);
    const holderIds = await this.checkHolderIds(workspaceId, pass.id, target.holderIds);

    const notification = stampCreated(
      this.notifications.create({
        workspaceId,
        passId: pass.id,
        accountId: pass.accountId,
        notificationName: input.notificationName,
        notificationMessage: input.notificationMessage ?? null,
        holderIds,
        segmentId: target.segmentId,
        audience: target.audience,
        audienceSize: null,
        status,
        scheduledTime,
        publishedTime: null,
        sentTime: null,
        appleNotificationSentCount: 0,
        googleNotificationSentCount: 0,
        totalNotificationSentCount: 0,
        leaseUntil: null,
        leasedBy: null,
        attempts: 0,
        preparedVersion: null,
        fanoutCursor: null,
        shardCount: null,
        appleOutcome: null,
        googleOutcome: null,
        failureReason: null,
      }),
      actorId,
    );
    await this.notifications.insert(notification);
    if (status !== 'Draft') this.worker.kick();
    return notification;
  }

  async get(workspaceId: string, id: string): Promise<Notification> {
    const notification = await this.notifications.findOneBy({ id, workspaceId });
    if (notification === null) throw new NotFoundError('Notification', id);
    return notification;
  }

  /**
   * Newest first, keyset-paged like every list. Plain SQL so that MariaDB can be told which
   * index the pages run along (a deep page is then a range from the cursor, not a scan of every
   * newer row); see the migration that adds `ix_notification_workspace_pass`.
   */
  async list(workspaceId: string, query: ListNotificationsQuery): Promise<Page<Notification>> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.passSerialNumber !== undefined) {
      where.push('n.pass_id = ?');
      params.push(query.passSerialNumber);
    }
    if (query.status !== undefined && query.status.length > 0) {
      where.push(`n.status IN (${query.status.map(() => '?').join(', ')})`);
      params.push(...query.status);
    }
    if (query.keyword !== undefined && query.keyword !== '') {
      where.push("LOWER(n.notification_name) LIKE ? ESCAPE '!'");
      params.push(likeContains(query.keyword));
    }
    const page = await paginateSql<Record<string, unknown>>(
      this.dataSource,
      workspaceId,
      {
        select: this.rows.select,
        table: 'notification',
        alias: 'n',
        // Status and keyword filter rows along the same range; only the pass narrows the range.
        pageIndex:
          query.passSerialNumber === undefined
            ? 'ix_notification_workspace'
            : 'ix_notification_workspace_pass',
        where,
        params,
        idColumn: 'n.id',
        idKey: this.rows.idKey,
      },
      query,
    );
    return { ...page, items: page.items.map((row) => this.rows.read(row)) };
  }

  async update(
    workspaceId: string,
    actorId: string,
    id: string,
    input: UpdateNotificationDto,
  ): Promise<Notification> {
    const current = await this.get(workspaceId, id);
    assertEditable(current.status);
    const movedTo =
      input.passSerialNumber === undefined || input.passSerialNumber === current.passId
        ? null
        : await this.passes.getEntity(workspaceId, input.passSerialNumber);
    const passId = movedTo?.id ?? current.passId;
    const status = input.status ?? current.status;
    const scheduledTime =
      input.scheduledTime === undefined ? current.scheduledTime : parseTime(input.scheduledTime);
    const message = input.notificationMessage ?? current.notificationMessage;
    checkSendable(status, message, scheduledTime);
    const target = nextTarget(input, current);
    // An audience or segment given now is checked; one kept is checked again only against
    // another pass (its face fields, its segments), as holders chosen for one pass are below.
    if (movedTo !== null || (input.audience ?? input.segmentId ?? null) !== null) {
      await this.checkAudience(
        workspaceId,
        movedTo ?? (await this.passes.getEntity(workspaceId, passId)),
        target,
      );
    }
    // Holders chosen for one pass are no holders of another: they are checked again.
    const holderIds = await this.checkHolderIds(workspaceId, passId, target.holderIds);

    const changes: Partial<Notification> = stampUpdated(
      {
        passId,
        ...(movedTo ? { accountId: movedTo.accountId } : {}),
        notificationName: input.notificationName ?? current.notificationName,
        notificationMessage: message,
        holderIds,
        segmentId: target.segmentId,
        audience: target.audience,
        status,
        scheduledTime,
      } as Notification,
      actorId,
    );
    // Compare-and-set: the worker may take a Scheduled notification at this very moment.
    const result = await this.notifications.update(
      { id, workspaceId, status: In(EDITABLE_STATUSES) },
      changes,
    );
    if (result.affected !== 1) assertEditable((await this.get(workspaceId, id)).status);
    if (status !== 'Draft') this.worker.kick();
    return this.get(workspaceId, id);
  }

  /**
   * An audience read against the pass's face fields (400 keyed by its path, `audience.all.1.gte`)
   * and a segment of this very pass (400 otherwise, as for `holderIds`: it is the body that is
   * wrong, not the path).
   */
  private async checkAudience(
    workspaceId: string,
    pass: Pass,
    target: NotificationTarget,
  ): Promise<void> {
    if (target.audience !== null) this.audiences.read(pass, target.audience);
    if (target.segmentId !== null) {
      await this.audiences.segment(workspaceId, pass.id, target.segmentId).catch((error) => {
        if (!(error instanceof NotFoundError)) throw error;
        throw new InvalidInputError({ segmentId: 'is not a segment of this pass' });
      });
    }
  }

  /**
   * Why a segment cannot be deleted now, for `SegmentsService`: a Draft or
   * Scheduled notification uses it, or one about to go out whose audience is not read yet (it
   * would fail for want of its segment). Null when none does.
   */
  async segmentInUse(workspaceId: string, segmentId: string): Promise<string | null> {
    const user = await this.notifications.findOne({
      select: { id: true, notificationName: true, status: true },
      where: [
        { workspaceId, segmentId, status: In(EDITABLE_STATUSES) },
        { workspaceId, segmentId, status: In(ACTIVE_STATUSES), audienceSize: IsNull() },
      ],
      order: { id: 'ASC' },
    });
    if (user === null) return null;
    const what = `The ${user.status} notification "${user.notificationName}" (${user.id})`;
    return EDITABLE_STATUSES.includes(user.status)
      ? `${what} is sent to this segment: delete it or give it another audience first`
      : `${what} is being sent to this segment: try again once it has gone out`;
  }

  /**
   * `holderIds` without repeats, each an Active holder of the pass; any other is a 400 keyed by
   * its index (`holderIds.<i>`), so a caller sees every bad id at once.
   */
  private async checkHolderIds(
    workspaceId: string,
    passId: string,
    holderIds: readonly string[] | null,
  ): Promise<string[] | null> {
    if (holderIds === null) return null;
    const unique = [...new Set(holderIds)];
    const found = await this.dataSource.getRepository(Holder).find({
      select: { id: true, status: true },
      where: { workspaceId, passId, id: In(unique) },
    });
    const statuses = new Map(found.map((holder) => [holder.id, holder.status]));
    const problems: Record<string, string> = {};
    holderIds.forEach((id, index) => {
      const status = statuses.get(id);
      if (status === undefined) problems[`holderIds.${index}`] = 'is not a holder of this pass';
      else if (status !== 'Active') problems[`holderIds.${index}`] = `is a ${status} holder`;
    });
    if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
    return unique;
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const result = await this.notifications.delete({
      id,
      workspaceId,
      status: In(EDITABLE_STATUSES),
    });
    if (result.affected !== 1) assertEditable((await this.get(workspaceId, id)).status);
  }
}

function assertEditable(status: NotificationStatus): void {
  if (!EDITABLE_STATUSES.includes(status)) {
    throw new ConflictError(`A notification in ${status} can no longer be changed`, { status });
  }
}

function parseTime(value: string | null | undefined): Date | null {
  return value === undefined || value === null ? null : new Date(value);
}

/** Sending needs a message; scheduling needs a time that is not in the past. */
function checkSendable(
  status: NotificationStatus,
  message: string | null,
  scheduledTime: Date | null,
): void {
  if (status === 'Draft') return;
  const problems: Record<string, string> = {};
  if (message === null) problems.notificationMessage = MUST_NOT_BE_NULL;
  else if (message.trim() === '') problems.notificationMessage = MUST_NOT_BE_EMPTY;
  if (status === 'Scheduled') {
    if (scheduledTime === null) problems.scheduledTime = MUST_NOT_BE_NULL;
    else if (scheduledTime.getTime() < Date.now() - PAST_TOLERANCE_MS) {
      problems.scheduledTime = 'must not be in the past';
    }
  }
  if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
}
