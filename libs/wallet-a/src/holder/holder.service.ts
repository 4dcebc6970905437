import { APP_CONFIG, EntityRows, NotFoundError, type AppConfig } from '@app/core';
import { HolderBundlesService, holderBundleUrls, type OpenedBundle } from '@app/holders';
import { passKindOf } from '@app/kinds';
import {
  fieldTexts,
  GoogleSaveLinks,
  Holder,
  Pass,
  pickLanguage,
  type PassLocalization,
} from '@app/passes';
import { PASS_IMAGES_MAX_BYTES, UploadsService } from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { buildPassFace, type PassFace } from '../package/pass-json';
import { PassPackageService, type PassPackage } from '../package/pass-package.service';
import {
  renderBundlePage,
  renderHolderPage,
  type HolderPage,
  type PageCard,
  type PageImage,
} from './holder-page';
import { kindDetails } from './kind-details';

/** The images the page shows (Wallet's names, with their @2x/@3x files). */
const PAGE_IMAGE = /^(logo|strip)(@([23])x)?\.png$/;

/** One of a pass's images, for the page's image route. */
export interface PassImage {
  bytes: Buffer;
  /** Strong validator: an upload's bytes never change, so its key names them. */
  etag: string;
}

@Injectable()
export class HolderService {
  private readonly passRows: EntityRows<Pass>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly packages: PassPackageService,
    private readonly uploads: UploadsService,
    private readonly googleSaveLinks: GoogleSaveLinks,
    private readonly bundles: HolderBundlesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.passRows = new EntityRows(dataSource, Pass, 'p');
  }

  async page(slug: string, acceptLanguage?: string): Promise<HolderPage> {
    const pass = await this.publishedPass(slug);
    return this.render(pass, undefined, acceptLanguage, {
      pageUrl: `${this.config.publicBaseUrl}/p/${pass.slug}`,
      walletAUrl: `${this.config.publicBaseUrl}/p/${pass.slug}/pass.pkpass`,
      walletBUrl: await this.googleSaveLinks.saveUrlFor(pass),
    });
  }

  /**
   * A personal holder's page (`downloadUrl`): the same page, its WalletA button downloading
   * the holder's own package. A voided holder's page says the pass is no longer valid and
   * offers nothing to add. WalletB's button saves the holder's own object.
   */
  async holderPage(
    slug: string,
    holderToken: string,
    acceptLanguage?: string,
  ): Promise<HolderPage> {
    const { pass, holder } = await this.publishedHolder(slug, holderToken);
    return this.render(pass, holder, acceptLanguage, {
      pageUrl: `${this.config.publicBaseUrl}/p/${pass.slug}/h/${holder.holderToken}`,
      walletAUrl:
        holder.status === 'Voided'
          ? null
          : `${this.config.publicBaseUrl}/p/${pass.slug}/h/${holder.holderToken}/pass.pkpass`,
      walletBUrl: await this.googleSaveLinks.saveUrlForHolder(pass, holder),
    });
  }

  /**
   * Google's save URL of the holder's own object, signed now (`Holder.googleSaveUrl` redirects
   * here): 404 when there is none (WalletB not configured, a Voided holder).
   */
  async holderWalletBUrl(slug: string, holderToken: string): Promise<string> {
    const { pass, holder } = await this.publishedHolder(slug, holderToken);
    const url = await this.googleSaveLinks.saveUrlForHolder(pass, holder);
    if (url === null) throw new NotFoundError('Holder', holderToken);
    return url;
  }

  /** The holder's own package; a voided holder's is not handed out again (404). */
  async holderPackage(slug: string, holderToken: string): Promise<PassPackage> {
    const { pass, holder } = await this.publishedHolder(slug, holderToken);
    if (holder.status === 'Voided') throw new NotFoundError('Holder', holderToken);
    return this.packages.packageForHolder(pass, holder);
  }

  /**
   * A bundle's page: each of its holders' passes, Add to WalletA downloading
   * them all (`.pkpasses`) and Add to WalletB saving them all (one grouped link, signed now).
   * Holders Voided since the bundle was made are left out; with none left, the page says the
   * passes are no longer valid and offers nothing to add.
   */
  async bundlePage(
    slug: string,
    bundleToken: string,
    acceptLanguage?: string,
  ): Promise<HolderPage> {
    const { pass, bundle, holders } = await this.publishedBundle(slug, bundleToken);
    const urls = holderBundleUrls(this.config.publicBaseUrl, pass.slug, bundle.bundleToken);
    const texts = this.texts(pass, acceptLanguage);
    return renderBundlePage({
      ...this.frame(pass, texts),
      cards: holders.map((holder) => this.card(pass, holder, texts)),
      colours: buildPassFace(pass),
      pageUrl: urls.pageUrl,
      walletAUrl: holders.length === 0 ? null : urls.walletAUrl,
      walletBUrl: await this.googleSaveLinks.saveUrlForHolders(pass, holders, bundle.id),
    });
  }

  /** The bundle's `.pkpasses`: its holders' own packages; a 404 when none is left. */
  async bundlePackage(slug: string, bundleToken: string): Promise<PassPackage> {
    const { pass, holders } = await this.publishedBundle(slug, bundleToken);
    if (holders.length === 0) throw new NotFoundError('Bundle', bundleToken);
    return this.packages.bundleForHolders(pass, holders);
  }

  /**
   * Google's save URL of the bundle's holders' objects, grouped, signed now (the bundle's
   * `googleSaveUrl` redirects here): 404 when there is none (WalletB not configured, no holder
   * left).
   */
  async bundleWalletBUrl(slug: string, bundleToken: string): Promise<string> {
    const { pass, bundle, holders } = await this.publishedBundle(slug, bundleToken);
    const url = await this.googleSaveLinks.saveUrlForHolders(pass, holders, bundle.id);
    if (url === null) throw new NotFoundError('Bundle', bundleToken);
    return url;
  }

  /**
   * One of the pass's logo or strip files, for the page: only of a published pass, only a file
   * its `uploadInfoList` names as such (PNG, checked when the pass was published).
   */
  async image(slug: string, uploadKey: string): Promise<PassImage> {
    const pass = await this.publishedPass(slug);
    const info = pass.uploadInfoList.find(
      (candidate) => candidate.uploadKey === uploadKey && PAGE_IMAGE.test(candidate.fileName),
    );
    if (info === undefined) throw new NotFoundError('Image', uploadKey);
    const upload = await this.uploads.getForWorkspace(pass.workspaceId, uploadKey);
    if (upload.contentType !== 'image/png') throw new NotFoundError('Image', uploadKey);
    return {
      bytes: await this.uploads.readBytes(upload, PASS_IMAGES_MAX_BYTES),
      etag: `"${upload.id}"`,
    };
  }

  private async render(
    pass: Pass,
    holder: Holder | undefined,
    acceptLanguage: string | undefined,
    urls: { pageUrl: string; walletAUrl: string | null; walletBUrl: string | null },
  ): Promise<HolderPage> {
    const texts = this.texts(pass, acceptLanguage);
    return renderHolderPage({
      ...this.frame(pass, texts),
      ...this.card(pass, holder, texts),
      personal: holder !== undefined,
      ...urls,
    });
  }

  /** The pass's texts in the browser's language (`Accept-Language`), when the pass has it. */
  private texts(pass: Pass, acceptLanguage: string | undefined): PageTexts {
    const localizations = pass.passMetadata.localizations ?? {};
    const language = pickLanguage(acceptLanguage, Object.keys(localizations));
    return { language, texts: language === null ? {} : localizations[language] };
  }

  /** What a page shows around its passes: the pass's names and images, in that language. */
  private frame(pass: Pass, { language, texts }: PageTexts) {
    const metadata = pass.passMetadata;
    return {
      language: language ?? 'en',
      passName: texts.passName ?? pass.passName,
      organizationName: texts.organizationName ?? metadata.organizationName,
      description: texts.description ?? metadata.description,
      logo: this.pageImage(pass, 'logo'),
      strip: this.pageImage(pass, 'strip'),
    };
  }

  /** The pass, or a holder's copy of it, as its holder sees it, in that language. */
  private card(pass: Pass, holder: Holder | undefined, { texts }: PageTexts): PageCard {
    return {
      face: localizedFace(buildPassFace(pass, holder), texts, holder?.fieldValues ?? {}),
      kind: kindDetails(passKindOf(pass.passMetadata, holder)),
    };
  }

  /**
   * The page's `<img>` of one of the pass's images: relative URLs of the image route, so the
   * page loads them from its own origin whatever host it was opened on, and keyed by upload so
   * browsers may keep them (a new image is a new upload, hence a new URL).
   */
  private pageImage(pass: Pass, name: 'logo' | 'strip'): PageImage | null {
    const scales = new Map<number, string>();
    for (const info of pass.uploadInfoList) {
      const match = PAGE_IMAGE.exec(info.fileName);
      if (match?.[1] === name) {
        scales.set(Number(match[3] ?? 1), `/p/${pass.slug}/images/${info.uploadKey}`);
      }
    }
    const ordered = [...scales.entries()].sort(([a], [b]) => a - b);
    if (ordered.length === 0) return null;
    return {
      src: ordered[0][1],
      srcset:
        ordered.length > 1 ? ordered.map(([scale, url]) => `${url} ${scale}x`).join(', ') : '',
    };
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

  /** The bundle of this token on this (published) pass, with its holders still Active. */
  private async publishedBundle(
    slug: string,
    bundleToken: string,
  ): Promise<OpenedBundle & { pass: Pass }> {
    const pass = await this.publishedPass(slug);
    return { pass, ...(await this.bundles.open(pass, bundleToken)) };
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

/** The language a page is in (null: the pass's own) and the pass's texts in it. */
interface PageTexts {
  language: string | null;
  texts: PassLocalization;
}

/**
 * The face in one of the pass's languages: each field's translated label, and its translated
 * value where it shows the pass's own (a holder's value is theirs, in no language of the pass's).
 */
function localizedFace(
  face: PassFace,
  texts: PassLocalization,
  holderValues: Record<string, string>,
): PassFace {
  if (texts.fields === undefined) return face;
  const localize = (list: PassFace['headerFields']) =>
    list.map((field) => {
      const translated = fieldTexts(texts, field.key);
      if (translated === undefined) return field;
      const own = Object.prototype.hasOwnProperty.call(holderValues, field.key);
      return {
        ...field,
        ...(translated.label !== undefined ? { label: translated.label } : {}),
        ...(translated.value !== undefined && !own ? { value: translated.value } : {}),
      };
    });
  return {
    ...face,
    headerFields: localize(face.headerFields),
    primaryFields: localize(face.primaryFields),
    secondaryFields: localize(face.secondaryFields),
    auxiliaryFields: localize(face.auxiliaryFields),
  };
}
