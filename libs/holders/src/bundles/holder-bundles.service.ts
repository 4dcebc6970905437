import {
  APP_CONFIG,
  InvalidInputError,
  NotFoundError,
  stampCreated,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { In, Repository } from 'typeorm';
import { type Pass, GoogleSaveLinks, PassesService, Holder } from '@app/passes';
import { holderBundleUrls, type HolderBundleResponse } from './dto/holder-bundle.dto';
import { HolderBundle } from './holder-bundle.entity';

/** 192 random bits, base64url: the unguessable part of a bundle's links, as a holder's token. */
const newBundleToken = (): string => randomBytes(24).toString('base64url');

/** What a bundle serves now: the bundle and its holders still Active, in the bundle's order. */
export interface OpenedBundle {
  bundle: HolderBundle;
  holders: Holder[];
}

/**
 * Bundles of holders: several holders of one pass handed over as one download,
 * one WalletB save link and one page. A bundle is a row (its token and its holders' ids), so
 * its links work on every instance and after restarts; what they serve is read at each request
 * from the holders as they are then, so a holder Voided since is never handed out through a
 * bundle (docs/decisions.md, "Bundles of holders").
 */
@Injectable()
export class HolderBundlesService {
  constructor(
    @InjectRepository(HolderBundle) private readonly bundles: Repository<HolderBundle>,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
    private readonly passes: PassesService,
    private readonly googleSaveLinks: GoogleSaveLinks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Bundles the holders (2–10 different ids, checked by the DTO) of a pass of this workspace
   * (404 otherwise). A holder that is no holder of this workspace is a 404 naming it, as under
   * a holder's own path; a holder of another pass of the workspace, or a Voided one, is a 400 on
   * `holderIds`. Nothing is written unless every holder is an Active holder of the pass.
   */
  async create(
    workspaceId: string,
    actorId: string,
    passId: string,
    holderIds: readonly string[],
  ): Promise<HolderBundleResponse> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const found = await this.holders.find({
      select: { id: true, passId: true, status: true },
      where: { workspaceId, id: In([...holderIds]) },
    });
    const byId = new Map(found.map((holder) => [holder.id, holder]));
    const unknown = holderIds.find((id) => !byId.has(id));
    if (unknown !== undefined) throw new NotFoundError('Holder', unknown);
    const problems = holderIds.flatMap((id, index) => {
      const holder = byId.get(id)!;
      const which = `${id} (holderIds[${index}])`;
      if (holder.passId !== pass.id) return [`${which} is a holder of another pass`];
      if (holder.status !== 'Active') return [`${which} is a ${holder.status} holder`];
      return [];
    });
    if (problems.length > 0) throw new InvalidInputError({ holderIds: problems.join('; ') });
    const bundle = stampCreated(
      this.bundles.create({
        workspaceId,
        passId: pass.id,
        bundleToken: newBundleToken(),
        holderIds: [...holderIds],
      }),
      actorId,
    );
    await this.bundles.insert(bundle);
    const urls = holderBundleUrls(this.config.publicBaseUrl, pass.slug, bundle.bundleToken);
    const googleCanSave = found.some((holder) => this.googleSaveLinks.holderCanSave(pass, holder));
    return {
      walletAUrl: urls.walletAUrl,
      googleSaveUrl: googleCanSave ? urls.walletBUrl : null,
      pageUrl: urls.pageUrl,
    };
  }

  /**
   * The bundle of this token on this pass (404 otherwise, as an unknown holder token is) and
   * its holders that are still Active, in the bundle's order: possibly none.
   */
  async open(pass: Pass, bundleToken: string): Promise<OpenedBundle> {
    const bundle = await this.bundles.findOneBy({ bundleToken, passId: pass.id });
    if (bundle === null) throw new NotFoundError('Bundle', bundleToken);
    const active = await this.holders.findBy({
      workspaceId: bundle.workspaceId,
      passId: pass.id,
      id: In(bundle.holderIds),
      status: 'Active',
    });
    const byId = new Map(active.map((holder) => [holder.id, holder]));
    return { bundle, holders: bundle.holderIds.flatMap((id) => byId.get(id) ?? []) };
  }
}
