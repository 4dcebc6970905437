import { APP_CONFIG, NotFoundError, type AppConfig } from '@app/core';
import { GoogleSaveLinks, Pass } from '@app/passes';
import { UploadsService } from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { PassPackageService, type PassPackage } from '../package/pass-package.service';
import { renderHolderPage } from './holder-page';

const LOGO_URL_SECONDS = 3600;

@Injectable()
export class HolderService {
  constructor(
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    private readonly packages: PassPackageService,
    private readonly uploads: UploadsService,
    private readonly googleSaveLinks: GoogleSaveLinks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async page(slug: string): Promise<string> {
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

  /** Drafts and deleted passes are not handed out. */
  private async publishedPass(slug: string): Promise<Pass> {
    const pass = await this.passes.findOneBy({ slug, status: 'Published', deletedTime: IsNull() });
    if (pass === null) throw new NotFoundError('Pass', slug);
    return pass;
  }
}
