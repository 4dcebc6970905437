import {
  APP_CONFIG,
  newId,
  NotFoundError,
  RATE_LIMIT_STORE,
  ServiceEvents,
  type AppConfig,
  type RateLimitStore,
} from '@app/core';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { SLUG_PATTERN } from '../metadata/pass-metadata.dto';
import { ShortLink } from '../entities/short-link.entity';
import { LinkClick } from './link-click.entity';
import { withUtmSource } from './utm';

/** Clicks whose insert has not finished yet; beyond this, clicks are dropped (and logged). */
const MAX_PENDING_CLICKS = 1000;
const CLICK_WINDOW_MS = 60_000;

export interface Redirect {
  location: string;
  shortLink: ShortLink;
}

export interface ClickOptions {
  /** When the click happened; now by default. */
  clickedTime?: Date;
  /** Who clicked (the client IP): at most RATE_LIMIT_PER_MINUTE clicks a minute are counted. */
  client?: string;
}

/**
 * `GET /l/{slug}`: finds the short link and records the click. The click is written after the
 * answer has gone out, so a slow or failing insert never delays or breaks a holder's redirect;
 * shutdown waits for the inserts still running.
 */
@Injectable()
export class LinkRedirectService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ShortLinks');
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(ShortLink) private readonly shortLinks: Repository<ShortLink>,
    private readonly events: ServiceEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // Absent in the worker, which serves no redirects.
    @Optional() @Inject(RATE_LIMIT_STORE) private readonly counters?: RateLimitStore,
  ) {}

  /**
   * Where `slug` leads. A malformed slug is a 404 like an unknown one: it is a link someone
   * clicked, not a request someone wrote. Links of deleted passes still lead on.
   */
  async resolve(slug: string): Promise<Redirect> {
    const shortLink = SLUG_PATTERN.test(slug) ? await this.shortLinks.findOneBy({ slug }) : null;
    // MySQL compares with a case-insensitive collation; the slug must match exactly everywhere.
    if (shortLink === null || shortLink.slug !== slug) throw new NotFoundError('Short link', slug);
    return { location: withUtmSource(shortLink.targetUrl, shortLink.utmSource), shortLink };
  }

  /** Starts writing the click and returns at once; a failure is logged, never thrown. */
  record(shortLink: ShortLink, options: ClickOptions = {}): void {
    const clickedTime = options.clickedTime ?? new Date();
    if (this.pending.size >= MAX_PENDING_CLICKS) {
      this.logger.warn(
        { shortLinkId: shortLink.id, pending: this.pending.size },
        'Too many click inserts waiting for the database; click not recorded',
      );
      return;
    }
    const work = this.counted(options.client)
      .then((counted) => (counted ? this.write(shortLink, clickedTime) : undefined))
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn(
            { err: error, shortLinkId: shortLink.id },
            'Could not record a short-link click; the redirect went out regardless',
          ),
      )
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** The click and its `link.clicked` event (the pass's daily statistics) commit together. */
  private write(shortLink: ShortLink, clickedTime: Date): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      await manager.insert(LinkClick, {
        id: newId(),
        workspaceId: shortLink.workspaceId,
        passId: shortLink.passId,
        shortLinkId: shortLink.id,
        clickedTime,
      });
      await this.events.record(manager, {
        type: 'link.clicked',
        workspaceId: shortLink.workspaceId,
        time: clickedTime,
        data: { passId: shortLink.passId },
      });
    });
  }

  /** Resolves once every click recorded so far is written (or has failed). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.flush();
  }

  /**
   * Whether this client's click counts: a script repeating one link may not inflate its
   * statistics (or fill the table) faster than RATE_LIMIT_PER_MINUTE clicks a minute. A failing
   * counter store counts the click, as the rate-limit guard lets requests through.
   */
  private async counted(client: string | undefined): Promise<boolean> {
    if (client === undefined || this.counters === undefined) return true;
    const limit = this.config.rateLimit.perMinute;
    let count: number;
    try {
      ({ count } = await this.counters.hit(`click:${client}`, CLICK_WINDOW_MS));
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; click counted');
      return true;
    }
    if (count === limit + 1) {
      this.logger.warn(
        { client, limit },
        'Click limit reached; further clicks this minute not counted',
      );
    }
    return count <= limit;
  }
}
