import { APP_CONFIG, EntityRows, NotFoundError, type AppConfig } from '@app/core';
import { GoogleSaveLinks, Holder, Pass } from '@app/passes';
import { UploadsService } from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PassPackageService, type PassPackage } from '../package/pass-package.service';
import { renderHolderPage, type HolderPage } from './holder-page';

const LOGO_URL_SECONDS = 3600;

@Injectable()
export class HolderService {
  private readonly passRows: EntityRows<Pass>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly packages: PassPackageService,
    private readonly uploads: UploadsService,
    private readonly googleSaveLinks: GoogleSaveLinks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.passRows = new EntityRows(dataSource, Pass, 'p');
  }

  async page(slug: string): Promise<HolderPage> {
    const pass = await this.publishedPass(slug);
    return this.render(pass, {
      walletAUrl: `${this.config.publicBaseUrl}/p/${pass.slug}/pass.pkpass`,
      walletBUrl: await this.googleSaveLinks.saveUrlFor(pass),
    });
  }

  /**
   * A personal holder's page (`downloadUrl`): the same page, its WalletA button downloading
   * the holder's own package. A voided holder's page says the pass is no longer valid and
   * offers nothing to add. WalletB's button saves the holder's own object.
   */
  async holderPage(slug: string, holderToken: string): Promise<HolderPage> {
    const { pass, holder } = await this.publishedHolder(slug, holderToken);
    return this.render(pass, {
      walletAUrl:
        holder.status === 'Voided'
          ? null
          : `${this.config.publicBaseUrl}/p/${pass.slug}/h/${holder.holderToken}/pass.pkpass`,
      walletBUrl: await this.googleSaveLinks.saveUrlForHolder(pass, holder),
    });
  }

  /** The holder's own package; a voided holder's is not handed out again (404). */
  async holderPackage(slug: string, holderToken: string): Promise<PassPackage> {
    const { pass, holder } = await this.publishedHolder(slug, holderToken);
    if (holder.status === 'Voided') throw new NotFoundError('Holder', holderToken);
    return this.packages.packageForHolder(pass, holder);
  }

  private async render(
    pass: Pass,
    urls: { walletAUrl: string | null; walletBUrl: string | null },
  ): Promise<HolderPage> {
    const metadata = pass.passMetadata;
    const logo = pass.uploadInfoList.find((info) => info.fileName === 'logo.png');
    const logoUrl = logo
      ? await this.uploads.signedUrl(
          await this.uploads.getForWorkspace(pass.workspaceId, logo.uploadKey),
          LOGO_URL_SECONDS,
        )
      : null;
    return renderHolderPage({
      passName: pass.passName,
      organizationName: metadata.organizationName,
      description: metadata.description,
      backgroundColor: metadata.backgroundColor ?? '#ffffff',
      textColor: metadata.displayTextColor ?? '#000000',
      logoUrl,
      ...urls,
    });
  }

  async package(slug: string): Promise<PassPackage> {
    return this.packages.packageFor(await this.publishedPass(slug));
  }

  /** The holder of this token on this (published) pass; anything else is a 404. */
  private async publishedHolder(
    slug: string,
    holderToken: string,
  ): Promise<{ pass: Pass; holder: Holder }> {
    const pass = await this.publishedPass(slug);
    const holder = await this.dataSource
      .getRepository(Holder)
      .findOneBy({ holderToken, passId: pass.id });
    if (holder === null) throw new NotFoundError('Holder', holderToken);
    return { pass, holder };
  }

  /**
   * Drafts and deleted passes are not handed out. Read on every download (the package itself
   * is cached), so in plain SQL rather than through the query builder: see EntityRows.
   */
  private async publishedPass(slug: string): Promise<Pass> {
    const [row] = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT ${this.passRows.select} FROM pass p ` +
        "WHERE p.slug = ? AND p.status = 'Published' AND p.deleted_time IS NULL LIMIT 1",
      [slug],
    );
    if (row === undefined) throw new NotFoundError('Pass', slug);
    return this.passRows.read(row);
  }
}
