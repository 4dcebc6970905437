import { APP_CONFIG, EntityRows, NotFoundError, type AppConfig } from '@app/core';
import { GoogleSaveLinks, Pass } from '@app/passes';
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
      walletAUrl: `${this.config.publicBaseUrl}/p/${pass.slug}/pass.pkpass`,
      walletBUrl: await this.googleSaveLinks.saveUrlFor(pass),
    });
  }

  async package(slug: string): Promise<PassPackage> {
    return this.packages.packageFor(await this.publishedPass(slug));
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
