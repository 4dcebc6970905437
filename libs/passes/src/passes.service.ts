import { AccountsService, type Account } from '@app/auth';
import {
  APP_CONFIG,
  ConflictError,
  InvalidInputError,
  isUniqueViolation,
  likeContains,
  NotFoundError,
  paginateSql,
  EntityRows,
  stampCreated,
  UnsupportedMediaTypeError,
  type AppConfig,
  type Page,
} from '@app/core';
import {
  PASS_IMAGES_MAX_BYTES,
  passImageProblem,
  passImageRole,
  UploadsService,
  type Upload,
} from '@app/uploads';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, Repository } from 'typeorm';
import type { CreatePassDto, UpdatePassDto } from './dto/create-pass.dto';
import type { ListPassesQuery } from './dto/list-passes.query';
import type { UploadInfoDto } from './metadata/pass-metadata.dto';
import type { PassView } from './dto/pass.response';
import { Pass, type PassStatus } from './entities/pass.entity';
import { GoogleSaveLinks } from './google-save-links';
import { HolderChanges, type HolderChangeSet } from './holder-changes';
import { passImagesOf, passTypeOf, type PassType } from '@app/kinds';
import { randomSlug } from './pass-content';
import { assertPassKind, assertPassTypeKept, assertPosterArtwork } from './pass-kinds';
import { ShortLinksService } from './short-links.service';

/** Image URLs handed out with `includeAssets=true` stay valid this long. */
const ASSET_URL_SECONDS = 3600;

@Injectable()
export class PassesService {
  private readonly passRows: EntityRows<Pass>;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    private readonly accounts: AccountsService,
    private readonly uploads: UploadsService,
    private readonly shortLinks: ShortLinksService,
    private readonly holderChanges: HolderChanges,
    private readonly googleSaveLinks: GoogleSaveLinks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.passRows = new EntityRows(dataSource, Pass, 'p');
  }

  async create(workspaceId: string, actorId: string, input: CreatePassDto): Promise<PassView> {
    const account =
      input.account === undefined || input.account === null
        ? await this.accounts.getDefault(workspaceId)
        : await this.accounts.get(workspaceId, input.account.id);
    const status = input.status ?? 'Draft';
    assertPassKind(input.passMetadata);
    const uploadInfoList = await this.checkImages(
      workspaceId,
      input.uploadInfoList ?? [],
      { status, passType: passTypeOf(input.passMetadata) },
      true,
    );
    assertPosterArtwork(
      input.passMetadata,
      uploadInfoList.map((image) => image.fileName),
    );

    const pass = stampCreated(
      this.passes.create({
        workspaceId,
        accountId: account.id,
        passName: input.passName,
        nameKey: input.passName.toLowerCase(),
        passMetadata: input.passMetadata,
        notificationHeader: input.notificationHeader ?? null,
        status,
        slug: input.slug ?? randomSlug(),
        uploadInfoList,
        appleIssuedCount: 0,
        googleIssuedCount: 0,
        totalIssuedCount: 0,
        appleActiveCount: 0,
        googleActiveCount: 0,
        totalActiveCount: 0,
        version: 1,
        walletATokenHash: null,
        walletAToken: null,
        walletAMessage: null,
        deletedTime: null,
      }),
      actorId,
    );
    const published = pass.status === 'Published';
    // Short links and a Published pass's wallet set-up write more rows, in one transaction with
    // the pass; a plain draft is a single INSERT, atomic by itself.
    const alone = !published && !ShortLinksService.hasValues(pass.passMetadata);
    await this.writing(pass, () =>
      alone
        ? this.passRows.insert(this.dataSource.manager, [pass])
        : this.holderChanges.transaction((changes) => this.insertWithLinks(changes, pass, actorId)),
    );
    return this.view(pass, account);
  }

  private async insertWithLinks(
    changes: HolderChangeSet,
    pass: Pass,
    actorId: string,
  ): Promise<void> {
    const { manager } = changes;
    await this.passRows.insert(manager, [pass]);
    // Short links need the pass row to exist; they rewrite the link values of the metadata
    // of the row just inserted, which no holder has seen yet.
    if (await this.shortLinks.assign(manager, pass, pass.passMetadata, actorId)) {
      await manager.update(Pass, { id: pass.id }, { passMetadata: pass.passMetadata });
    }
    // A pass created Published is a change holders can see: wallet integrations set it up.
    if (pass.status === 'Published') changes.created(pass);
  }

  /**
   * Replaces name, metadata and header (and status and images when sent). Every change moves
   * the pass version on, which is what tells holders' devices to fetch the pass again.
   */
  async update(
    workspaceId: string,
    actorId: string,
    id: string,
    input: UpdatePassDto,
  ): Promise<PassView> {
    const pass = await this.getEntity(workspaceId, id);
    if (input.status === 'Draft' && pass.status === 'Published') {
      throw new ConflictError('A Published pass cannot go back to Draft', { status: 'Published' });
    }
    const status = input.status ?? pass.status;
    assertPassKind(input.passMetadata);
    assertPassTypeKept(pass.status, pass.passMetadata, input.passMetadata);
    const uploadInfoList = await this.checkImages(
      workspaceId,
      input.uploadInfoList ?? pass.uploadInfoList,
      { status, passType: passTypeOf(input.passMetadata) },
      input.uploadInfoList !== undefined || (status === 'Published' && pass.status !== 'Published'),
    );
    assertPosterArtwork(
      input.passMetadata,
      uploadInfoList.map((image) => image.fileName),
    );

    const changed = {
      passName: input.passName,
      nameKey: input.passName.toLowerCase(),
      passMetadata: input.passMetadata,
      notificationHeader:
        input.notificationHeader === undefined ? pass.notificationHeader : input.notificationHeader,
      status,
      uploadInfoList,
      updatedBy: actorId,
    };
    Object.assign(pass, changed);
    await this.writing(pass, () =>
      this.holderChanges.transaction(async (changes) => {
        // Rewrites the link values of `changed.passMetadata` in place.
        await this.shortLinks.assign(changes.manager, pass, pass.passMetadata, actorId);
        const written = await changes.bumpPassVersion(
          { id: pass.id, workspaceId, deletedTime: IsNull() },
          changed,
        );
        if (written === null) throw new NotFoundError('Pass', pass.id);
        Object.assign(pass, { version: written.version, updatedTime: written.updatedTime });
      }),
    );
    return this.view(pass, await this.accounts.get(workspaceId, pass.accountId));
  }

  /** Deletes the pass for the API; holders' devices see it voided on their next update. */
  async remove(workspaceId: string, actorId: string, id: string): Promise<void> {
    const pass = await this.getEntity(workspaceId, id);
    await this.holderChanges.transaction(async (changes) => {
      const written = await changes.bumpPassVersion(
        { id: pass.id, workspaceId, deletedTime: IsNull() },
        (_locked, updatedTime) => ({ deletedTime: updatedTime, nameKey: null, updatedBy: actorId }),
      );
      if (written === null) throw new NotFoundError('Pass', pass.id);
    });
  }

  async get(workspaceId: string, id: string, includeAssets = false): Promise<PassView> {
    const pass = await this.getEntity(workspaceId, id);
    const account = await this.accounts.get(workspaceId, pass.accountId);
    return this.view(
      pass,
      account,
      includeAssets ? await this.assetUrls(workspaceId, [pass]) : undefined,
    );
  }

  /** A pass of this workspace that was not deleted; anything else is "not found". */
  async getEntity(workspaceId: string, id: string): Promise<Pass> {
    const pass = await this.passes.findOneBy({ id, workspaceId, deletedTime: IsNull() });
    if (pass === null) throw new NotFoundError('Pass', id);
    return pass;
  }

  /**
   * The pass list is the busiest read, so it is one hand-written query (the account's name
   * joined in) instead of two through the query builder; see {@link EntityRows}.
   */
  async list(workspaceId: string, query: ListPassesQuery): Promise<Page<PassView>> {
    const where = ['p.deleted_time IS NULL'];
    const params: unknown[] = [];
    if (query.keyword !== undefined && query.keyword !== '') {
      where.push("p.name_key LIKE ? ESCAPE '!'");
      params.push(likeContains(query.keyword));
    }
    if (query.name !== undefined) {
      // name_key is unique per workspace, so at most one row matches; its case is checked below.
      where.push('p.name_key = ?');
      params.push(query.name.toLowerCase());
    }
    if (query.id !== undefined) {
      where.push('p.id = ?');
      params.push(query.id);
    }
    for (const [column, values] of [
      ['p.id', query.ids],
      ['p.status', query.status],
    ] as const) {
      if (values === undefined || values.length === 0) continue;
      where.push(`${column} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    }

    const selective =
      query.name !== undefined || query.id !== undefined || (query.ids?.length ?? 0) > 0;
    const page = await paginateSql<Record<string, unknown>>(
      this.dataSource,
      workspaceId,
      {
        select: `${this.passRows.select}, a.name AS account_name`,
        table: 'pass',
        alias: 'p',
        // Reading along (workspace, id) suits every filter but the selective ones.
        pageIndex: selective ? undefined : 'ix_pass_workspace',
        joins: 'LEFT JOIN account a ON a.id = p.account_id AND a.workspace_id = p.workspace_id',
        where,
        params,
        idColumn: 'p.id',
        idKey: this.passRows.idKey,
      },
      query,
    );
    const rows = page.items
      .map((row) => ({ pass: this.passRows.read(row), accountName: row.account_name }))
      .filter(({ pass }) => query.name === undefined || pass.passName === query.name);
    const passes = rows.map(({ pass }) => pass);
    const assetUrls =
      query.includeAssets === true ? await this.assetUrls(workspaceId, passes) : undefined;
    const saveUrls = await this.googleSaveLinks.saveUrlsFor(passes);
    return {
      ...page,
      items: rows.map(({ pass, accountName }, index) =>
        this.viewOf(
          pass,
          { id: pass.accountId, name: typeof accountName === 'string' ? accountName : '' },
          saveUrls[index],
          assetUrls,
        ),
      ),
    };
  }

  /** The pass as the API shows it, its save link made (signed) when it can have one. */
  private async view(
    pass: Pass,
    account: Pick<Account, 'id' | 'name'>,
    assetUrls?: Map<string, string>,
  ): Promise<PassView> {
    return this.viewOf(pass, account, await this.googleSaveLinks.saveUrlFor(pass), assetUrls);
  }

  private viewOf(
    pass: Pass,
    account: Pick<Account, 'id' | 'name'>,
    googleSaveUrl: string | null,
    assetUrls?: Map<string, string>,
  ): PassView {
    return {
      pass,
      account,
      downloadUrl: `${this.config.publicBaseUrl}/p/${pass.slug}`,
      googleSaveUrl,
      assetUrls,
    };
  }

  /**
   * Runs a write (in a transaction, unless it is a single statement), turning unique-index
   * conflicts into a 409 naming the field that clashed.
   */
  /** Runs a pass write, telling a taken name or slug as a 409. */
  private async writing(pass: Pass, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const message = error instanceof Error ? error.message : '';
      if (/slug/i.test(message)) {
        throw new ConflictError('This slug is taken', { slug: pass.slug });
      }
      throw new ConflictError('A pass with this name already exists in the workspace', {
        passName: pass.passName,
      });
    }
  }

  /**
   * Every image must be an upload of this workspace and really a PNG (sniffed at upload), each
   * upload used once. A Published pass needs the logo, the icon and what its kind's style cannot
   * do without (`passImagesOf`: a store card's strip); an image its style never shows is kept,
   * and left out of its package. When the images change or the pass is published, each is
   * checked against its role's size and all against the package limit, so that no package a
   * holder downloads can be made huge (uploads from before these limits included).
   */
  private async checkImages(
    workspaceId: string,
    images: UploadInfoDto[],
    { status, passType }: { status: PassStatus; passType: PassType },
    inspect: boolean,
  ): Promise<UploadInfoDto[]> {
    const names = new Set<string>();
    const keys = new Map<string, number>();
    const uploads: Upload[] = [];
    for (const [index, image] of images.entries()) {
      if (names.has(image.fileName)) {
        throw new InvalidInputError({
          [`uploadInfoList[${index}].fileName`]: 'appears more than once',
        });
      }
      names.add(image.fileName);
      const sameKey = keys.get(image.uploadKey);
      if (sameKey !== undefined) {
        throw new InvalidInputError({
          [`uploadInfoList[${index}].uploadKey`]: `is already the image of uploadInfoList[${sameKey}]; upload each image once per role`,
        });
      }
      keys.set(image.uploadKey, index);
      const upload = await this.uploads.getForWorkspace(workspaceId, image.uploadKey);
      if (upload.contentType !== 'image/png') {
        throw new UnsupportedMediaTypeError('Pass images must be PNG', {
          [`uploadInfoList[${index}].uploadKey`]: image.uploadKey,
          contentType: upload.contentType,
        });
      }
      uploads.push(upload);
    }
    if (status === 'Published') {
      // What a Published pass needs does not depend on NFC, only whether it is a poster.
      const { missing, needed } = passImagesOf(passType, [...names], false);
      if (missing.length > 0) {
        throw new InvalidInputError({
          uploadInfoList: `a Published ${passType} needs ${needed} (missing ${missing.join(', ')})`,
        });
      }
    }
    if (inspect) await this.checkImageSizes(images, uploads);
    return images.map(({ fileName, uploadKey }) => ({ fileName, uploadKey }));
  }

  private async checkImageSizes(images: UploadInfoDto[], uploads: Upload[]): Promise<void> {
    const total = uploads.reduce((sum, upload) => sum + upload.size, 0);
    if (total > PASS_IMAGES_MAX_BYTES) {
      throw new InvalidInputError({
        uploadInfoList: `the images have ${total} bytes together; a pass's images may have at most ${PASS_IMAGES_MAX_BYTES}`,
      });
    }
    const headers = await Promise.all(uploads.map((upload) => this.uploads.pngHeader(upload)));
    for (const [index, header] of headers.entries()) {
      const field = `uploadInfoList[${index}].uploadKey`;
      if (header === undefined) {
        throw new InvalidInputError({ [field]: 'is not a valid PNG (malformed IHDR header)' });
      }
      const role = passImageRole(images[index].fileName);
      const problem = passImageProblem(header, uploads[index].size, role);
      if (problem !== undefined) throw new InvalidInputError({ [field]: `the image ${problem}` });
    }
  }

  private async assetUrls(workspaceId: string, passes: Pass[]): Promise<Map<string, string>> {
    const urls = new Map<string, string>();
    const keys = [
      ...new Set(passes.flatMap((pass) => pass.uploadInfoList.map((info) => info.uploadKey))),
    ];
    await Promise.all(
      keys.map(async (key) => {
        // An image whose upload is gone simply has no URL; other failures are real failures.
        const upload = await this.uploads
          .getForWorkspace(workspaceId, key)
          .catch((error: unknown) => {
            if (error instanceof NotFoundError) return null;
            throw error;
          });
        if (upload !== null) urls.set(key, await this.uploads.signedUrl(upload, ASSET_URL_SECONDS));
      }),
    );
    return urls;
  }
}
