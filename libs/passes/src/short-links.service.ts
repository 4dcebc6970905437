import {
  APP_CONFIG,
  ConflictError,
  isUniqueViolation,
  stampCreated,
  stampUpdated,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import type { PassMetadataDto } from './metadata/pass-metadata.dto';
import type { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { randomSlug } from './pass-content';

/**
 * Gives every back-field link of a pass a short link, `{PUBLIC_BASE_URL}/l/{slug}`, so clicks
 * can be counted. A link value sent back with its `shortLinkId` keeps its short link (and
 * slug); old short links stay valid for holders whose pass still shows them.
 */
@Injectable()
export class ShortLinksService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  shortUrl(slug: string): string {
    return `${this.config.publicBaseUrl}/l/${slug}`;
  }

  /** Whether {@link assign} has anything to do: the metadata has back-field values. */
  static hasValues(metadata: PassMetadataDto): boolean {
    return (metadata.backFields ?? []).some((field) => field.value.length > 0);
  }

  /**
   * Fills `shortLinkId`, `slug` and `shortLinkValue` of each link value, in place. False when
   * the metadata has no back-field values, so nothing in it can have changed.
   */
  async assign(
    manager: EntityManager,
    pass: Pass,
    metadata: PassMetadataDto,
    actorId: string,
  ): Promise<boolean> {
    const values = (metadata.backFields ?? []).flatMap((field, fieldIndex) =>
      field.value.map((value, valueIndex) => ({
        value,
        path: `passMetadata.backFields[${fieldIndex}].value[${valueIndex}]`,
      })),
    );
    const claimedIds = values.flatMap(({ value }) =>
      value.shortLinkId ? [value.shortLinkId] : [],
    );
    const existing = claimedIds.length
      ? await manager.findBy(ShortLink, {
          passId: pass.id,
          workspaceId: pass.workspaceId,
          id: In(claimedIds),
        })
      : [];
    const byId = new Map(existing.map((link) => [link.id, link]));
    const reused = new Set<string>();

    for (const { value, path } of values) {
      if (value.link === undefined) {
        delete value.shortLinkId;
        delete value.shortLinkValue;
        continue;
      }
      let shortLink = value.shortLinkId === undefined ? undefined : byId.get(value.shortLinkId);
      if (shortLink !== undefined && !reused.has(shortLink.id)) {
        reused.add(shortLink.id);
        if (
          shortLink.targetUrl !== value.link ||
          shortLink.utmSource !== (value.utmSource ?? null)
        ) {
          shortLink.targetUrl = value.link;
          shortLink.utmSource = value.utmSource ?? null;
          await manager.save(ShortLink, stampUpdated(shortLink, actorId));
        }
      } else {
        shortLink = stampCreated(
          manager.create(ShortLink, {
            workspaceId: pass.workspaceId,
            passId: pass.id,
            slug: value.slug ?? randomSlug(),
            targetUrl: value.link,
            utmSource: value.utmSource ?? null,
          }),
          actorId,
        );
        try {
          await manager.insert(ShortLink, shortLink);
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new ConflictError('This short-link slug is taken', {
              [`${path}.slug`]: shortLink.slug,
            });
          }
          throw error;
        }
      }
      value.shortLinkId = shortLink.id;
      value.slug = shortLink.slug;
      value.shortLinkValue = this.shortUrl(shortLink.slug);
    }
    return values.length > 0;
  }
}
