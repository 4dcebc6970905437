import { InvalidInputError, MAX_PAGE_SIZE, type Page } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type SelectQueryBuilder } from 'typeorm';
import { ShortLink } from '../entities/short-link.entity';
import { LinkClick } from './link-click.entity';

/** The spec's WorkspaceTopLinkStats: one short link of a pass and its clicks in a window. */
export interface WorkspaceTopLinkStats {
  /** Id of the short link. */
  id: string;
  /** The short link's target, as the pass names it (without the added `utm_source`). */
  linkUrl: string;
  totalClicks: number;
  workspaceId: string;
  createdTime: string;
  updatedTime: string;
  createdBy: string | null;
  updatedBy: string | null;
}

export interface LinkStatsWindow {
  totalLinksClicks: number;
  linkStats: Page<WorkspaceTopLinkStats>;
}

export interface LinkStatsPageRequest {
  /** Offset into the ranking, as returned in the previous page's `cursor`. */
  cursor?: string;
  /** 1 to 20, default 20. */
  limit?: number;
}

const OFFSET_CURSOR = /^\d{1,15}$/;

/**
 * Clicks on a pass's short links within a time window, for notification statistics: the total
 * and the pass's short links ranked by clicks (most first, ties by short-link id, oldest
 * first), links without clicks in the window last. The ranking pages by offset, as the spec's
 * integer-like cursor says; a click arriving between two pages can move a link across the
 * page boundary, which statistics can live with.
 */
@Injectable()
export class LinkStatsService {
  constructor(
    @InjectRepository(ShortLink) private readonly shortLinks: Repository<ShortLink>,
    @InjectRepository(LinkClick) private readonly clicks: Repository<LinkClick>,
  ) {}

  /** Clicks in [from, to); `to` null means until now. Another workspace's pass reads as empty. */
  async forWindow(
    workspaceId: string,
    passId: string,
    from: Date,
    to: Date | null,
    page: LinkStatsPageRequest = {},
  ): Promise<LinkStatsWindow> {
    const offset = parseOffsetCursor(page.cursor);
    const limit = page.limit ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new InvalidInputError({ limit: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
    }
    if (Number.isNaN(from.getTime())) throw new InvalidInputError({ from: 'must be a date' });
    if (to !== null && Number.isNaN(to.getTime())) {
      throw new InvalidInputError({ to: 'must be a date' });
    }
    const window = { workspaceId, passId, from, to: to ?? new Date() };

    const total = await this.windowClicks(this.clicks.createQueryBuilder('click'), window)
      .select('COUNT(*)', 'clicks')
      .getRawOne<{ clicks: number | string }>();

    const { entities, raw } = await this.shortLinks
      .createQueryBuilder('link')
      .leftJoin(
        (counts: SelectQueryBuilder<LinkClick>) =>
          this.windowClicks(counts.from(LinkClick, 'click'), window)
            .select('click.short_link_id', 'short_link_id')
            .addSelect('COUNT(*)', 'clicks')
            .groupBy('click.short_link_id'),
        'counted',
        'counted.short_link_id = link.id',
      )
      .addSelect('COALESCE(counted.clicks, 0)', 'link_clicks')
      .where('link.workspace_id = :workspaceId', { workspaceId })
      .andWhere('link.pass_id = :passId', { passId })
      .orderBy('COALESCE(counted.clicks, 0)', 'DESC')
      .addOrderBy('link.id', 'ASC')
      .offset(offset)
      .limit(limit + 1)
      .getRawAndEntities<{ link_id: string; link_clicks: number | string }>();

    const clicksById = new Map(raw.map((row) => [row.link_id, Number(row.link_clicks)]));
    const hasMore = entities.length > limit;
    const items = entities.slice(0, limit).map((link): WorkspaceTopLinkStats => ({
      id: link.id,
      linkUrl: link.targetUrl,
      totalClicks: clicksById.get(link.id) ?? 0,
      workspaceId: link.workspaceId,
      createdTime: link.createdTime.toISOString(),
      updatedTime: link.updatedTime.toISOString(),
      createdBy: link.createdBy,
      updatedBy: link.updatedBy,
    }));
    return {
      totalLinksClicks: Number(total?.clicks ?? 0),
      linkStats: { items, hasMore, cursor: hasMore ? String(offset + items.length) : null },
    };
  }

  /** The clicks of the window; the workspace is always part of the condition. */
  private windowClicks<T extends SelectQueryBuilder<LinkClick>>(
    query: T,
    window: { workspaceId: string; passId: string; from: Date; to: Date },
  ): T {
    query
      .where('click.workspace_id = :workspaceId', { workspaceId: window.workspaceId })
      .andWhere('click.pass_id = :passId', { passId: window.passId })
      .andWhere('click.clicked_time >= :windowFrom', { windowFrom: window.from })
      .andWhere('click.clicked_time < :windowTo', { windowTo: window.to });
    return query;
  }
}

/** The spec's integer-like cursor: a non-negative integer, the offset of the page's first item. */
export function parseOffsetCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!OFFSET_CURSOR.test(cursor)) {
    throw new InvalidInputError({ cursor: 'must be a non-negative integer returned as cursor' });
  }
  return Number(cursor);
}
