import { AccountsService } from '@app/auth';
import {
  InvalidInputError,
  NotFoundError,
  paginate,
  stampCreated,
  stampUpdated,
  UnsupportedMediaTypeError,
  type Page,
  type Principal,
  likeContains,
  sqlDialect,
} from '@app/core';
import { CSV, GIF, JPEG, PNG, UploadsService, WEBP, Upload } from '@app/uploads';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { CampaignRecordsService } from './campaign-records.service';
import { assertCampaignMove } from './campaign-status';
import type { CampaignView, FileInfoResponse } from './dto/campaign.response';
import type {
  CampaignFieldsDto,
  CreateCampaignDto,
  UpdateCampaignDto,
} from './dto/create-campaign.dto';
import type { ListCampaignsQuery } from './dto/list-campaigns.query';
import type { VideoPerformanceInputDto } from './dto/video-performance.dto';
import type { CampaignData } from './entities/campaign-data.entity';
import {
  Campaign,
  CAMPAIGN_FILE_FIELDS,
  IMAGE_FILE_FIELDS,
  RECORD_FILE_FIELDS,
  type CampaignFileField,
} from './entities/campaign.entity';

/** FileInfo download links stay valid this long. */
const FILE_URL_SECONDS = 3600;

const IMAGE_TYPES: readonly string[] = [PNG, JPEG, GIF, WEBP];
const IMAGE_FIELDS: readonly CampaignFileField[] = IMAGE_FILE_FIELDS;

/** Who reads: `branded` users see published campaigns only. */
export type CampaignReader = Pick<Principal, 'role'>;

const publishedOnly = (reader: CampaignReader) => reader.role === 'branded';

/** The upload key each file field should hold, for the fields the input sets or clears. */
type ResolvedFiles = Map<CampaignFileField, Upload | null>;

@Injectable()
export class CampaignsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
    @InjectRepository(Upload) private readonly uploadRecords: Repository<Upload>,
    private readonly accounts: AccountsService,
    private readonly uploads: UploadsService,
    private readonly records: CampaignRecordsService,
  ) {}

  /**
   * Creates the campaign with its CampaignData row and, when a CSV file is named, the file's
   * records and their totals, all in one transaction.
   */
  async create(
    workspaceId: string,
    actorId: string,
    input: CreateCampaignDto,
  ): Promise<CampaignView> {
    const files = await this.resolveFiles(workspaceId, input);
    const account = await this.accounts.getDefault(workspaceId);
    const campaign = this.campaigns.create({
      workspaceId,
      accountId: account.id,
      name: input.name,
      nameKey: input.name.toLowerCase(),
      type: input.type ?? 'BoostedPost',
      status: input.status ?? 'NotStarted',
      startDate: null,
      endDate: null,
      isPublished: false,
      platforms: [],
      targetViews: null,
      beforeViews: null,
      afterViews: null,
      deliveredViews: null,
      contentLink: null,
      submissionNotes: null,
      beforeImage: null,
      afterImage: null,
      campaignDataFileInfo: null,
      videoPerformanceFileInfo: null,
    });
    applyFields(campaign, input, files);
    stampCreated(campaign, actorId);
    const fileRecords = await this.readRecordFiles(campaign, await this.readNewFiles(files));

    const data = await this.dataSource.transaction(async (manager) => {
      await manager.insert(Campaign, campaign);
      const created = await this.records.createData(manager, campaign, input.campaignData, actorId);
      if (fileRecords.length === 0) return created;
      await this.records.replaceFileRecords(manager, campaign, fileRecords, actorId);
      return this.records.refreshData(manager, campaign, actorId, { recount: true });
    });
    return (await this.views(workspaceId, [campaign], new Map([[campaign.id, data]])))[0];
  }

  /**
   * Changes the fields sent. A status must be a move `campaign-status.ts` allows (409 otherwise).
   * Setting a CSV file field, even to the same file, replaces the campaign's file records with
   * those of the files it then names; clearing one drops its records. Any failure changes
   * nothing.
   */
  async update(
    workspaceId: string,
    actorId: string,
    id: string,
    input: UpdateCampaignDto,
  ): Promise<CampaignView> {
    await this.getEntity(workspaceId, id);
    const files = await this.resolveFiles(workspaceId, input);
    // Read the new files before the transaction: nothing waits on the database meanwhile.
    const known = await this.readNewFiles(files);
    const reimport = RECORD_FILE_FIELDS.some((field) => files.has(field));

    const [campaign, data] = await this.dataSource.transaction(async (manager) => {
      const current = await this.lockForWrite(manager, workspaceId, id);
      if (input.status !== undefined) assertCampaignMove(current.status, input.status);
      applyFields(current, input, files);
      stampUpdated(current, actorId);
      const { id: campaignId, ...changes } = current;
      await manager.update(Campaign, { id: campaignId, workspaceId }, changes);
      if (reimport) {
        const fileRecords = await this.readRecordFiles(current, known);
        await this.records.replaceFileRecords(manager, current, fileRecords, actorId);
      }
      const refreshed = await this.records.refreshData(manager, current, actorId, {
        notes: input.campaignData,
        recount: reimport,
      });
      return [current, refreshed] as const;
    });
    return (await this.views(workspaceId, [campaign], new Map([[campaign.id, data]])))[0];
  }

  async get(workspaceId: string, reader: CampaignReader, id: string): Promise<CampaignView> {
    const campaign = await this.getVisible(workspaceId, reader, id);
    return (await this.views(workspaceId, [campaign]))[0];
  }

  async list(
    workspaceId: string,
    reader: CampaignReader,
    query: ListCampaignsQuery,
  ): Promise<Page<CampaignView>> {
    const builder = this.campaigns
      .createQueryBuilder('campaign')
      .where('campaign.workspace_id = :workspaceId', { workspaceId });
    if (publishedOnly(reader)) builder.andWhere('campaign.is_published = 1');
    if (query.keyword !== undefined && query.keyword !== '') {
      builder.andWhere("campaign.name_key LIKE :keyword ESCAPE '!'", {
        keyword: likeContains(query.keyword),
      });
    }
    if (query.status !== undefined && query.status.length > 0) {
      builder.andWhere('campaign.status IN (:...statuses)', { statuses: query.status });
    }
    if (query.type !== undefined && query.type.length > 0) {
      builder.andWhere('campaign.type IN (:...types)', { types: query.type });
    }
    if (query.id !== undefined) builder.andWhere('campaign.id = :id', { id: query.id });
    if (query.ids !== undefined && query.ids.length > 0) {
      builder.andWhere('campaign.id IN (:...ids)', { ids: query.ids });
    }
    const page = await paginate(builder, query);
    return { ...page, items: await this.views(workspaceId, page.items) };
  }

  /** A campaign of this workspace the reader may see; anything else is "not found". */
  async getVisible(workspaceId: string, reader: CampaignReader, id: string): Promise<Campaign> {
    const campaign = await this.campaigns.findOneBy({
      id,
      workspaceId,
      ...(publishedOnly(reader) ? { isPublished: true } : {}),
    });
    if (campaign === null) throw new NotFoundError('Campaign', id);
    return campaign;
  }

  /**
   * The campaign, read inside `manager`'s transaction so that no other write to it runs until
   * the transaction ends: a row lock on MySQL; on SQLite the connection gate already lets one
   * transaction run at a time.
   */
  async lockForWrite(manager: EntityManager, workspaceId: string, id: string): Promise<Campaign> {
    const query = manager
      .createQueryBuilder(Campaign, 'campaign')
      .where('campaign.id = :id', { id })
      .andWhere('campaign.workspace_id = :workspaceId', { workspaceId });
    if (sqlDialect(manager.connection).rowLocks) query.setLock('pessimistic_write');
    const campaign = await query.getOne();
    if (campaign === null) throw new NotFoundError('Campaign', id);
    return campaign;
  }

  private async getEntity(workspaceId: string, id: string): Promise<Campaign> {
    const campaign = await this.campaigns.findOneBy({ id, workspaceId });
    if (campaign === null) throw new NotFoundError('Campaign', id);
    return campaign;
  }

  /**
   * The uploads the input names (404 for a key unknown in this workspace): images for
   * beforeImage/afterImage, CSV for the record files (415 otherwise). `null` clears a field.
   */
  private async resolveFiles(
    workspaceId: string,
    input: CampaignFieldsDto,
  ): Promise<ResolvedFiles> {
    const files: ResolvedFiles = new Map();
    for (const field of CAMPAIGN_FILE_FIELDS) {
      const ref = input[field];
      if (ref === undefined) continue;
      if (ref === null) {
        files.set(field, null);
        continue;
      }
      const upload = await this.uploads.getForWorkspace(workspaceId, ref.fileKey);
      const image = IMAGE_FIELDS.includes(field);
      if (image ? !IMAGE_TYPES.includes(upload.contentType) : upload.contentType !== CSV) {
        throw new UnsupportedMediaTypeError(
          `${field} must be ${image ? 'an image (PNG, JPEG, GIF or WebP)' : 'a CSV file'}`,
          { [`${field}.fileKey`]: ref.fileKey, contentType: upload.contentType },
        );
      }
      files.set(field, upload);
    }
    return files;
  }

  /** Reads the CSV files the input sets, each once, by upload key. */
  private async readNewFiles(
    files: ResolvedFiles,
  ): Promise<Map<string, VideoPerformanceInputDto[]>> {
    const known = new Map<string, VideoPerformanceInputDto[]>();
    for (const field of RECORD_FILE_FIELDS) {
      const upload = files.get(field);
      if (upload && !known.has(upload.id)) {
        known.set(upload.id, await this.records.readFile(upload, field));
      }
    }
    return known;
  }

  /**
   * The records of the CSV files the campaign names, each file once. Files already read are
   * taken from `known`; one the campaign named before this change is read again.
   */
  private async readRecordFiles(
    campaign: Campaign,
    known: ReadonlyMap<string, VideoPerformanceInputDto[]>,
  ): Promise<VideoPerformanceInputDto[]> {
    const records: VideoPerformanceInputDto[] = [];
    const seen = new Set<string>();
    for (const field of RECORD_FILE_FIELDS) {
      const key = campaign[field];
      if (key === null || seen.has(key)) continue;
      seen.add(key);
      const read =
        known.get(key) ??
        (await this.records.readFile(
          await this.uploads.getForWorkspace(campaign.workspaceId, key),
          field,
        ));
      records.push(...read);
    }
    return records;
  }

  /** Campaigns with their CampaignData and FileInfo (freshly signed URLs). */
  private async views(
    workspaceId: string,
    campaigns: Campaign[],
    data?: Map<string, CampaignData>,
  ): Promise<CampaignView[]> {
    const dataById =
      data ??
      (await this.records.findData(
        workspaceId,
        campaigns.map((c) => c.id),
      ));
    const keys = [
      ...new Set(
        campaigns.flatMap((campaign) =>
          CAMPAIGN_FILE_FIELDS.flatMap((field) => campaign[field] ?? []),
        ),
      ),
    ];
    const uploads =
      keys.length === 0 ? [] : await this.uploadRecords.findBy({ workspaceId, id: In(keys) });
    const fileInfos = new Map<string, FileInfoResponse>(
      await Promise.all(
        uploads.map(
          async (upload) =>
            [
              upload.id,
              {
                fileKey: upload.id,
                fileName: upload.fileName,
                url: await this.uploads.signedUrl(upload, FILE_URL_SECONDS),
              },
            ] as const,
        ),
      ),
    );
    return campaigns.map((campaign) => {
      const campaignData = dataById.get(campaign.id);
      if (campaignData === undefined) {
        throw new Error(`Campaign ${campaign.id} has no campaign_data row`);
      }
      const files: CampaignView['files'] = {};
      for (const field of CAMPAIGN_FILE_FIELDS) {
        const info = campaign[field] === null ? undefined : fileInfos.get(campaign[field]);
        if (info !== undefined) files[field] = { ...info };
      }
      return { campaign, data: campaignData, files };
    });
  }
}

/** Copies the fields the input sends onto the campaign (`null` clears a nullable one). */
function applyFields(
  campaign: Campaign,
  input: CampaignFieldsDto & { name?: string },
  files: ResolvedFiles,
): void {
  if (input.name !== undefined) {
    campaign.name = input.name;
    campaign.nameKey = input.name.toLowerCase();
  }
  if (input.type !== undefined) campaign.type = input.type;
  if (input.status !== undefined) campaign.status = input.status;
  if (input.startDate !== undefined) campaign.startDate = input.startDate;
  if (input.endDate !== undefined) campaign.endDate = input.endDate;
  if (input.isPublished !== undefined) campaign.isPublished = input.isPublished;
  if (input.platforms !== undefined) campaign.platforms = input.platforms;
  if (input.targetViews !== undefined) campaign.targetViews = input.targetViews;
  if (input.beforeViews !== undefined) campaign.beforeViews = input.beforeViews;
  if (input.afterViews !== undefined) campaign.afterViews = input.afterViews;
  if (input.deliveredViews !== undefined) campaign.deliveredViews = input.deliveredViews;
  if (input.contentLink !== undefined) campaign.contentLink = input.contentLink;
  if (input.submissionNotes !== undefined) campaign.submissionNotes = input.submissionNotes;
  for (const [field, upload] of files) campaign[field] = upload?.id ?? null;
  if (
    campaign.startDate !== null &&
    campaign.endDate !== null &&
    campaign.startDate > campaign.endDate
  ) {
    throw new InvalidInputError({ endDate: 'must not be before startDate' });
  }
}
