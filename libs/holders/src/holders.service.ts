import {
  APP_CONFIG,
  ConflictError,
  EntityRows,
  InvalidInputError,
  isUniqueViolation,
  NotFoundError,
  paginate,
  ReadReplica,
  ServiceEvents,
  sqlDialect,
  stampCreated,
  type AppConfig,
  type Page,
  type RecordedEvent,
} from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import {
  Pass,
  HolderChanges,
  type HolderChangeSet,
  holderChangeTime,
  PassesService,
  GoogleSaveLinks,
  Holder,
} from '@app/passes';
import { requireExternalId, type HolderInputDto } from './holder-input.dto';
import { toHolderResponse, type HolderView } from './holder.response';
import type { ListHoldersQuery } from './list-holders.query';
import {
  HOLDER_SEGMENT_FILTER,
  type HolderCondition,
  type HolderSegmentFilter,
} from './holder-segment-filter';
import {
  barcodeValueProblems,
  editHolder,
  fieldValueProblems,
  type HolderEdit,
  holderFieldKeys,
  mergeFieldValues,
  nfcMessageProblems,
  passengerNameProblems,
  targetingOf,
  type HolderTargeting,
  type HolderVisible,
} from './holder-edit';
import type { ImportRow } from './holder-import';
import {
  attributeCountProblem,
  attributeProblems,
  tagProblems,
  writeTargetingRows,
} from './holder-targeting';

/** Rows per multi-row INSERT and per `IN (...)` lookup of an import: well under every limit. */
const IMPORT_CHUNK = 500;
/** Holders per multi-row UPDATE of a bulk change's batch: about 5,000 bound values. */
const UPDATE_CHUNK = 200;

type HolderEventType = 'holder.created' | 'holder.updated' | 'holder.voided';

/** 128 random bits, hex: safe in a WalletA serial number and a WalletB object id alike. */
const newSerialNumber = (): string => randomBytes(16).toString('hex');
/** 192 random bits, base64url: the unguessable part of the holder page's URL. */
const newHolderToken = (): string => randomBytes(24).toString('base64url');

/**
 * Holders of a pass: the API of personal copies, whose packages, pushes and
 * WalletB objects the wallet libraries make from the changes announced through HolderChanges.
 * Rules:
 *
 * - A pass of another workspace is a 404 for every holder route, as for the pass routes; so is
 *   a deleted pass for reads, PATCH and DELETE. A Draft or deleted pass takes no new holders
 *   (create and import: 409), since nobody can add it.
 * - `externalId` is unique per pass (the database says so; a clash is a 409 naming it).
 * - A Voided holder is final: PATCH is a 409, DELETE again is a 204, an import naming it a 409.
 * - `version` moves on only when what the holder sees changes (field values, barcode, dates,
 *   status).
 */
@Injectable()
export class HoldersService {
  private readonly holderRows: EntityRows<Holder>;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
    private readonly passes: PassesService,
    private readonly holderChanges: HolderChanges,
    private readonly googleSaveLinks: GoogleSaveLinks,
    @Inject(HOLDER_SEGMENT_FILTER) private readonly segments: HolderSegmentFilter,
    private readonly events: ServiceEvents,
    private readonly replica: ReadReplica,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.holderRows = new EntityRows(dataSource, Holder, 'h');
  }

  async create(
    workspaceId: string,
    actorId: string,
    passId: string,
    input: HolderInputDto,
  ): Promise<HolderView> {
    const pass = await this.passTakingHolders(workspaceId, passId);
    const missing = requireExternalId(input);
    if (missing !== undefined) throw new InvalidInputError(missing);
    const problems = {
      ...fieldValueProblems(pass, input.fieldValues, false),
      ...barcodeValueProblems(pass, input.barcodeValue),
      ...passengerNameProblems(pass, input.passengerName),
      ...nfcMessageProblems(pass, input.nfcMessage),
      ...targetingProblems(input, EMPTY_TARGETING),
    };
    if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
    const holder = this.newHolder(workspaceId, actorId, pass, input);
    // A new holder is on no device yet: nothing to push, but its event commits with it.
    await this.writing(holder.externalId, () =>
      this.holderChanges.transaction(async (changes) => {
        await this.holderRows.insert(changes.manager, [holder]);
        await writeTargetingRows(changes.manager, [holder], { fresh: true });
        await this.recordEvent(changes.manager, 'holder.created', pass, holder);
      }),
    );
    return this.view(pass, holder);
  }

  /**
   * A page of the pass's holders, read from a read replica when DB_READ_URLS lists any: it may
   * lag the latest writes by the replica's delay (ReadReplica). The pass and the segment are
   * looked up on the primary, so a pass or segment just created is never a 404 here.
   */
  async list(
    workspaceId: string,
    passId: string,
    query: ListHoldersQuery,
  ): Promise<Page<HolderView>> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const segment: HolderCondition | undefined =
      query.segmentId === undefined
        ? undefined
        : await this.segments.segmentCondition(workspaceId, pass, query.segmentId);
    const page = await this.replica.read((manager) => {
      const builder = manager
        .getRepository(Holder)
        .createQueryBuilder('h')
        .where('h.workspace_id = :workspaceId AND h.pass_id = :passId', {
          workspaceId,
          passId: pass.id,
        });
      if (query.externalId !== undefined) {
        builder.andWhere('h.external_id = :externalId', { externalId: query.externalId });
      }
      if (query.status !== undefined && query.status.length > 0) {
        builder.andWhere('h.status IN (:...statuses)', { statuses: query.status });
      }
      if (query.installed !== undefined) {
        builder.andWhere(
          `h.apple_installed_count + h.google_installed_count ${query.installed ? '>' : '='} 0`,
        );
      }
      (query.tag ?? []).forEach((tag, index) => {
        builder.andWhere(
          `h.id IN (SELECT t.holder_id FROM holder_tag t WHERE t.pass_id = :passId AND t.tag = :tag${index})`,
          { [`tag${index}`]: tag },
        );
      });
      if (segment !== undefined) builder.andWhere(segment.sql, segment.parameters);
      return paginate(builder, query);
    });
    return {
      ...page,
      items: page.items.map((holder) => this.view(pass, holder)),
    };
  }

  async get(workspaceId: string, passId: string, holderId: string): Promise<HolderView> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const holder = await this.holders.findOneBy({ id: holderId, workspaceId, passId: pass.id });
    if (holder === null) throw new NotFoundError('Holder', holderId);
    return this.view(pass, holder);
  }

  /**
   * Changes the fields sent. `fieldValues` merges by key (null: back to the pass's value);
   * a null barcode goes back to the pass's. The row is locked first, so two PATCHes of one
   * holder merge one after the other and each sees the other's values.
   */
  async update(
    workspaceId: string,
    actorId: string,
    passId: string,
    holderId: string,
    input: HolderInputDto,
  ): Promise<HolderView> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const problems = {
      ...fieldValueProblems(pass, input.fieldValues, true),
      ...barcodeValueProblems(pass, input.barcodeValue),
      ...passengerNameProblems(pass, input.passengerName),
      ...nfcMessageProblems(pass, input.nfcMessage),
    };
    if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
    const targeting = targetingProblems(input, undefined);
    if (Object.keys(targeting).length > 0) throw new InvalidInputError(targeting);
    const holder = await this.writing(input.externalId ?? '', () =>
      this.holderChanges.transaction((changes) =>
        this.updateLocked(changes, workspaceId, actorId, pass, holderId, input),
      ),
    );
    return this.view(pass, holder);
  }

  /** Voids the holder (idempotent: a Voided holder stays as it is, still a 204, no event). */
  async remove(
    workspaceId: string,
    actorId: string,
    passId: string,
    holderId: string,
  ): Promise<void> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const where = { id: holderId, workspaceId, passId: pass.id };
    await this.holderChanges.transaction(async (changes) => {
      const holder = await this.lockedHolder(changes.manager, where);
      if (holder === null) throw new NotFoundError('Holder', holderId);
      if (holder.status === 'Voided') return;
      const now = new Date();
      const voided: Partial<Holder> = {
        status: 'Voided',
        voidedTime: now,
        updatedTime: holderChangeTime(holder.updatedTime, now),
        updatedBy: actorId,
        version: holder.version + 1,
      };
      await changes.manager.update(Holder, where, voided);
      // The voided package goes to the holder's devices, which then show it as no longer valid.
      changes.holderChanged(Object.assign(holder, voided));
      await this.recordEvent(changes.manager, 'holder.voided', pass, holder);
    });
  }

  /**
   * Upserts by `externalId`, all or nothing: every row is checked (field keys against the
   * pass, no externalId twice) before one transaction looks up the existing holders in
   * chunks, inserts the new ones in multi-row INSERTs and updates the changed ones. An
   * import row replaces the holder's values: a value it leaves out goes back to the pass's.
   * Each holder created is a `holder.created` event, each whose values changed a
   * `holder.updated` (a row that changes nothing writes nothing and tells nothing).
   */
  async import(
    workspaceId: string,
    actorId: string,
    passId: string,
    rows: ImportRow[] | ((fieldKeys: string[]) => ImportRow[]),
  ): Promise<{ created: number; updated: number }> {
    const pass = await this.passTakingHolders(workspaceId, passId);
    const list = typeof rows === 'function' ? rows(holderFieldKeys(pass)) : rows;
    checkImportRows(pass, list);
    return this.writing('', () =>
      this.holderChanges.transaction(async (changes) => {
        const manager = changes.manager;
        // A transaction's manager has its runner, whose structured result tells affected rows.
        const runner = manager.queryRunner!;
        const existing = await this.existingByExternalId(manager, workspaceId, pass.id, list);
        const created: Holder[] = [];
        const rewritten: Holder[] = [];
        let updated = 0;
        let changed = 0;
        // Every changed holder's updatedTime is at or after this (holderChangeTime), so one
        // announcement "holders changed since now" reaches exactly them (and, harmlessly, any
        // holder a concurrent change moved on too) without one push job per holder.
        const now = new Date();
        for (const row of list) {
          const externalId = row.input.externalId!;
          const current = existing.get(externalId);
          if (current === undefined) {
            created.push(this.newHolder(workspaceId, actorId, pass, row.input));
            continue;
          }
          if (current.status === 'Voided') voidedRow(row);
          updated += 1;
          const edited = editHolder(current, importEdit(current, row.input), actorId, now);
          if (edited.kind === 'refused') refusedRow(row, edited.problems);
          if (edited.kind === 'unchanged') continue;
          if (edited.visibleChange) changed += 1;
          const written: Holder = Object.assign(new Holder(), current, edited.written);
          // Only while still Active: the lookup above took no lock, so a DELETE may have voided
          // the holder since. Such a row is then refused as a Voided holder's row always is.
          const result = await runner.query(
            'UPDATE holder SET field_values = ?, barcode_value = ?, barcode_text = ?, ' +
              'relevant_date = ?, expiration_date = ?, passenger_name = ?, nfc_message = ?, ' +
              'tags = ?, attributes = ?, ' +
              "version = version + ?, updated_time = ?, updated_by = ? WHERE id = ? AND status = 'Active'",
            [
              JSON.stringify(written.fieldValues),
              written.barcodeValue,
              written.barcodeText,
              written.relevantDate,
              written.expirationDate,
              written.passengerName === null ? null : JSON.stringify(written.passengerName),
              written.nfcMessage,
              JSON.stringify(written.tags),
              JSON.stringify(written.attributes),
              edited.visibleChange ? 1 : 0,
              this.dateValue(written.updatedTime),
              actorId,
              current.id,
            ],
            true,
          );
          if (result.affected === 0) voidedRow(row);
          rewritten.push(written);
          await this.recordEvent(manager, 'holder.updated', pass, written);
        }
        for (let at = 0; at < created.length; at += IMPORT_CHUNK) {
          await this.holderRows.insert(manager, created.slice(at, at + IMPORT_CHUNK));
        }
        await writeTargetingRows(manager, created, { fresh: true });
        await writeTargetingRows(manager, rewritten);
        for (const holder of created) {
          await this.recordEvent(manager, 'holder.created', pass, holder);
        }
        // New holders are on no device yet: nothing to push for them.
        if (changed > 0) changes.holdersChangedSince(pass.id, now);
        return { created: created.length, updated };
      }),
    );
  }

  /**
   * Changes some holders of the pass, each exactly as a PATCH would (`editHolder`), in the
   * caller's transaction (a bulk change's batch): the rows are locked (in id order, so two
   * batches over the same holders take turns rather than deadlock; SQLite's transactions run
   * one at a time anyway), each holder's edit is made
   * by `editOf` from the holder as locked, the audiences' rows of the changed ones are rewritten
   * and a `holder.updated` is recorded for each. The caller announces the visible changes to the
   * wallets (`holdersChangedSince`): every such holder's `updatedTime` is at or after the time
   * this batch started, as after an import.
   *
   * `skipped`: holders left alone: Voided ones (a void is final), ids that are no holder of the
   * pass, those `editOf` refuses (null), and those the edit would give more than 50 tags or
   * attributes (a PATCH would be a 400). `updated`: holders whose row changed. A holder the edit
   * leaves as it was is neither: nothing is written or told for it, as for such a PATCH.
   */
  async editBatch(
    changes: HolderChangeSet,
    actorId: string | null,
    pass: Pass,
    holderIds: readonly string[],
    editOf: (holder: Holder) => HolderEdit | null,
  ): Promise<{ updated: number; skipped: number }> {
    const manager = changes.manager;
    // Read and locked in one statement, in plain SQL (the entity reader of the hot paths):
    // TypeORM's find and its no-op UPDATE lock were a third of a batch's time.
    const lock = sqlDialect(this.dataSource).rowLocks ? ' FOR UPDATE' : '';
    const rows = await manager.query<Record<string, unknown>[]>(
      `SELECT ${this.holderRows.select} FROM holder h ` +
        `WHERE h.workspace_id = ? AND h.pass_id = ? AND h.id IN (${holderIds.map(() => '?').join(', ')}) ` +
        `ORDER BY h.id${lock}`,
      [pass.workspaceId, pass.id, ...holderIds],
    );
    const holders = rows.map((row) => this.holderRows.read(row));
    const now = new Date();
    const changed: Holder[] = [];
    const retargeted: Holder[] = [];
    const columns = new Set<string>(['version']);
    let skipped = holderIds.length - holders.length;
    for (const holder of holders) {
      const edit = holder.status === 'Voided' ? null : editOf(holder);
      const edited = edit === null ? null : editHolder(holder, edit, actorId, now);
      if (edited === null || edited.kind === 'refused') {
        skipped += 1;
        continue;
      }
      if (edited.kind === 'unchanged') continue;
      for (const [column, value] of Object.entries(edited.written)) {
        if (!sameValue(holder[column as keyof Holder], value)) columns.add(column);
      }
      const updated = Object.assign(holder, edited.written);
      changed.push(updated);
      if (edited.visibleChange || edited.targetingChange) retargeted.push(updated);
    }
    // Each holder's own values, a few hundred rows a statement, only the columns the batch
    // changes: one UPDATE per holder was most of a batch's time on MariaDB.
    for (let at = 0; at < changed.length; at += UPDATE_CHUNK) {
      await this.holderRows.update(manager, changed.slice(at, at + UPDATE_CHUNK), [...columns], {
        workspaceId: pass.workspaceId,
        passId: pass.id,
      });
    }
    await writeTargetingRows(manager, retargeted);
    await this.events.recordAll(
      manager,
      changed.map((holder) => this.eventOf('holder.updated', pass, holder)),
    );
    return { updated: changed.length, skipped };
  }

  /**
   * A pass that takes new holders: of this workspace (else 404), Published and not deleted
   * (else 409). Only here does a deleted pass differ from an unknown one: the
   * caller's own workspace deleted it, so telling so leaks nothing to anyone else.
   */
  private async passTakingHolders(workspaceId: string, passId: string): Promise<Pass> {
    const pass = await this.passes.getEntity(workspaceId, passId).catch(async (error) => {
      if (!(error instanceof NotFoundError)) throw error;
      const deleted = await this.dataSource.getRepository(Pass).findOne({
        select: { id: true, deletedTime: true },
        where: { workspaceId, id: passId, deletedTime: Not(IsNull()) },
      });
      if (deleted?.deletedTime == null) throw error;
      throw new ConflictError('A deleted pass takes no holders', {
        deletedTime: deleted.deletedTime.toISOString(),
      });
    });
    if (pass.status !== 'Published') {
      throw new ConflictError('A Draft pass takes no holders; publish it first', {
        status: pass.status,
      });
    }
    return pass;
  }

  private newHolder(
    workspaceId: string,
    actorId: string,
    pass: Pass,
    input: HolderInputDto,
  ): Holder {
    return stampCreated(
      this.holders.create({
        workspaceId,
        passId: pass.id,
        externalId: input.externalId!,
        serialNumber: newSerialNumber(),
        holderToken: newHolderToken(),
        status: 'Active',
        ...visibleOf(input),
        ...targetingOf(EMPTY_TARGETING, input),
        appleInstalledCount: 0,
        googleInstalledCount: 0,
        version: 1,
        voidedTime: null,
        walletATokenHash: null,
        walletAToken: null,
      }),
      actorId,
    );
  }

  private async updateLocked(
    changes: HolderChangeSet,
    workspaceId: string,
    actorId: string,
    pass: Pass,
    holderId: string,
    input: HolderInputDto,
  ): Promise<Holder> {
    const manager = changes.manager;
    const where = { id: holderId, workspaceId, passId: pass.id };
    const holder = await this.lockedHolder(manager, where);
    if (holder === null) throw new NotFoundError('Holder', holderId);
    if (holder.status === 'Voided') {
      throw new ConflictError('A Voided holder cannot change', { status: 'Voided' });
    }
    const edited = editHolder(holder, input, actorId, new Date());
    if (edited.kind === 'refused') throw new InvalidInputError(edited.problems);
    if (edited.kind === 'unchanged') return holder;
    const { written, visibleChange, targetingChange } = edited;
    await manager.update(Holder, where, written);
    const updated = Object.assign(holder, written);
    if (visibleChange || targetingChange) await writeTargetingRows(manager, [updated]);
    if (visibleChange) changes.holderChanged(updated);
    await this.recordEvent(manager, 'holder.updated', pass, updated);
    return updated;
  }

  /**
   * Locks the holder's row for the rest of the transaction (a no-op UPDATE, as lockPassRow
   * does: MySQL may report it as affecting no row, so the read says whether it exists).
   */
  private async lockedHolder(
    manager: EntityManager,
    where: { id: string; workspaceId: string; passId: string },
  ): Promise<Holder | null> {
    await manager
      .createQueryBuilder()
      .update(Holder)
      .set({ version: () => 'version' })
      .where(where)
      .execute();
    return manager.findOneBy(Holder, where);
  }

  /**
   * Tells the service's followers (webhooks) about a holder change, in its transaction, with
   * the holder as the API shows it.
   */
  private async recordEvent(
    manager: EntityManager,
    type: HolderEventType,
    pass: Pass,
    holder: Holder,
  ): Promise<void> {
    await this.events.record(manager, this.eventOf(type, pass, holder));
  }

  private eventOf(type: HolderEventType, pass: Pass, holder: Holder): RecordedEvent {
    const data = toHolderResponse(this.view(pass, holder));
    return { type, workspaceId: holder.workspaceId, time: new Date(), data: { ...data } };
  }

  /** The import's holders that exist already, by externalId, looked up in chunks. */
  private async existingByExternalId(
    manager: EntityManager,
    workspaceId: string,
    passId: string,
    rows: ImportRow[],
  ): Promise<Map<string, Holder>> {
    const found = new Map<string, Holder>();
    const externalIds = rows.map((row) => row.input.externalId!);
    for (let at = 0; at < externalIds.length; at += IMPORT_CHUNK) {
      // Whole rows: a changed holder's event carries the holder as the API shows it.
      const holders = await manager.find(Holder, {
        where: { workspaceId, passId, externalId: In(externalIds.slice(at, at + IMPORT_CHUNK)) },
      });
      for (const holder of holders) found.set(holder.externalId, holder);
    }
    return found;
  }

  /** A Date as the driver stores it in a raw statement (SQLite keeps datetime as text). */
  private dateValue(date: Date): unknown {
    const column = this.dataSource.getMetadata(Holder).findColumnWithPropertyName('updatedTime');
    return this.dataSource.driver.preparePersistentValue(date, column!);
  }

  /** Runs a holder write, telling a taken externalId as a 409. */
  private async writing<T>(externalId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new ConflictError(
        'A holder with this externalId already exists for the pass',
        externalId === '' ? undefined : { externalId },
      );
    }
  }

  /** Cheap (no I/O, no signature): an import makes one for each row's event. */
  private view(pass: Pass, holder: Holder): HolderView {
    return {
      holder,
      pass,
      publicBaseUrl: this.config.publicBaseUrl,
      googleCanSave: this.googleSaveLinks.holderCanSave(pass, holder),
    };
  }
}

/** Whether a column keeps its value (JSON columns compared as JSON, dates by time). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Refuses an import row naming a Voided holder: a void is final (the whole import fails). */
function voidedRow(row: ImportRow): never {
  const [key] = row.problem('externalId', '');
  throw new ConflictError('A Voided holder cannot come back; use another externalId', {
    [key]: row.input.externalId,
  });
}

/** The values an input (create, import row) sets; absent or null: the pass's. */
function visibleOf(input: HolderInputDto): HolderVisible {
  return {
    fieldValues: mergeFieldValues({}, input.fieldValues),
    barcodeValue: input.barcodeValue ?? null,
    barcodeText: input.barcodeText ?? null,
    relevantDate: input.relevantDate ?? null,
    expirationDate: input.expirationDate ?? null,
    passengerName: input.passengerName
      ? { givenName: input.passengerName.givenName, familyName: input.passengerName.familyName }
      : null,
    nfcMessage: input.nfcMessage ?? null,
  };
}

const EMPTY_TARGETING: HolderTargeting = { tags: [], attributes: {} };

/**
 * Problems of an input's `tags` and `attributes` (keyed `tags.<i>`, `attributes.<key>`); with
 * `created`, the holder they start from, whose merged attributes must not exceed 50 keys.
 */
function targetingProblems(
  input: HolderInputDto,
  created: HolderTargeting | undefined,
): Record<string, string> {
  const problems = {
    ...(input.tags === undefined ? {} : tagProblems(input.tags)),
    ...(input.attributes === undefined || input.attributes === null
      ? {}
      : attributeProblems(input.attributes, true)),
  };
  if (Object.keys(problems).length > 0 || created === undefined) return problems;
  return attributeCountProblem(targetingOf(created, input).attributes);
}

/** Refuses an import row whose holder would carry too many tags or attributes once merged. */
function refusedRow(row: ImportRow, problems: Record<string, string>): never {
  const errors: Record<string, string> = {};
  for (const [field, message] of Object.entries(problems)) {
    const [key, text] = row.problem(field, message);
    errors[key] ??= text;
  }
  throw new InvalidInputError(errors);
}

/**
 * An import row as an edit of the holder it names: it replaces the visible values (a value it
 * leaves out goes back to the pass's), and changes tags and attributes as a PATCH does.
 */
function importEdit(current: Holder, input: HolderInputDto): HolderEdit {
  const visible = visibleOf(input);
  const dropped = Object.keys(current.fieldValues).filter(
    (key) => !Object.hasOwn(visible.fieldValues, key),
  );
  return {
    ...visible,
    fieldValues: {
      ...Object.fromEntries(dropped.map((key) => [key, null])),
      ...visible.fieldValues,
    },
    tags: input.tags,
    attributes: input.attributes,
  };
}

/** Field keys and unique externalIds of every import row; all problems in one 400. */
function checkImportRows(pass: Pass, rows: ImportRow[]): void {
  const keys = holderFieldKeys(pass);
  const errors: Record<string, string> = {};
  const firstRow = new Map<string, number>();
  rows.forEach((row, index) => {
    const problems = {
      ...fieldValueProblems(pass, row.input.fieldValues, false, keys),
      ...barcodeValueProblems(pass, row.input.barcodeValue),
      ...passengerNameProblems(pass, row.input.passengerName),
      ...nfcMessageProblems(pass, row.input.nfcMessage),
      ...targetingProblems(row.input, EMPTY_TARGETING),
    };
    const externalId = row.input.externalId!;
    const first = firstRow.get(externalId);
    if (first === undefined) firstRow.set(externalId, index);
    else
      problems.externalId = `appears more than once in the import (first at ${rows[first].problem('', '')[0]})`;
    for (const [field, message] of Object.entries(problems)) {
      const [key, text] = row.problem(field, message);
      errors[key] ??= text;
    }
  });
  if (Object.keys(errors).length > 0) throw new InvalidInputError(errors);
}
