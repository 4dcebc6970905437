import {
  ConflictError,
  DomainError,
  InvalidInputError,
  NotFoundError,
  stampCreated,
} from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { AudiencesService } from '../audiences.service';
import { type Pass, PassesService, Holder } from '@app/passes';
import { bulkTargetProblems, readBulkChanges } from './bulk-changes';
import type { CreateBulkChangeDto } from './bulk-change.dto';
import { HolderBulkChange } from './holder-bulk-change.entity';
import { HolderBulkChangeWorker } from './holder-bulk-change.worker';

/**
 * Bulk changes of a pass's holders: checked whole when made (a 400 names every
 * bad part and nothing is written), then worked through by {@link HolderBulkChangeWorker}.
 * Rules:
 *
 * - A pass of another workspace, or a deleted one, is a 404, as for a holder's PATCH; a Draft
 *   pass has no holders to change (409, as holder writes say).
 * - Exactly one target: `audience` (checked against the pass), `segmentId` (a segment of the
 *   pass, else 404; its audience is read when the change starts) or `holderIds` (each a holder
 *   of the pass, else a 400 keyed `holderIds.<i>`; Voided ones are counted in `skipped`).
 * - Reading a change needs only that it is one of this workspace's and pass's: a change whose
 *   pass was deleted meanwhile still shows why it Failed.
 */
@Injectable()
export class HolderBulkChangesService {
  constructor(
    @InjectRepository(HolderBulkChange) private readonly changes: Repository<HolderBulkChange>,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
    private readonly passes: PassesService,
    private readonly audiences: AudiencesService,
    private readonly worker: HolderBulkChangeWorker,
  ) {}

  async create(
    workspaceId: string,
    actorId: string,
    passId: string,
    input: CreateBulkChangeDto,
  ): Promise<HolderBulkChange> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    if (pass.status !== 'Published') {
      throw new ConflictError('A Draft pass has no holders; publish it first', {
        status: pass.status,
      });
    }
    // Every problem of the body in one 400: the target's and the change's.
    const targetProblems = bulkTargetProblems(input);
    const read = readBulkChanges(pass, input);
    const problems = {
      ...targetProblems,
      ...(Object.keys(targetProblems).length === 0
        ? await this.targetProblems(workspaceId, pass, input)
        : {}),
      ...read.problems,
    };
    if (read.problems !== undefined || Object.keys(problems).length > 0) {
      throw new InvalidInputError(problems);
    }
    const change = stampCreated(
      this.changes.create({
        workspaceId,
        passId: pass.id,
        status: 'Pending',
        segmentId: input.segmentId ?? null,
        audience: input.audience ?? null,
        holderIds: input.holderIds === undefined ? null : [...new Set(input.holderIds)],
        changes: read.changes,
        matched: null,
        updated: 0,
        skipped: 0,
        cursor: null,
        failureReason: null,
        finishedTime: null,
        leaseUntil: null,
        leasedBy: null,
        attempts: 0,
      }),
      actorId,
    );
    await this.changes.save(change, { reload: false });
    this.worker.kick();
    return change;
  }

  async get(workspaceId: string, passId: string, bulkId: string): Promise<HolderBulkChange> {
    const change = await this.changes.findOneBy({ id: bulkId, workspaceId, passId });
    if (change === null) throw new NotFoundError('Bulk change', bulkId);
    return change;
  }

  /**
   * Problems of the one target given: an audience that does not read (keyed `audience.<path>`),
   * or `holderIds` that are no holders of the pass. An unknown segment is a 404.
   */
  private async targetProblems(
    workspaceId: string,
    pass: Pass,
    input: CreateBulkChangeDto,
  ): Promise<Record<string, string>> {
    if (input.holderIds !== undefined) {
      const found = await this.holders.find({
        select: { id: true },
        where: { workspaceId, passId: pass.id, id: In([...new Set(input.holderIds)]) },
      });
      const ids = new Set(found.map((holder) => holder.id));
      const problems: Record<string, string> = {};
      input.holderIds.forEach((id, index) => {
        if (!ids.has(id)) problems[`holderIds.${index}`] = 'is not a holder of this pass';
      });
      return problems;
    }
    try {
      await this.audiences.resolve(workspaceId, pass, {
        audience: input.audience,
        segmentId: input.segmentId,
      });
      return {};
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return fieldProblems(error);
    }
  }
}

/** A validation error's problems, to answer them with others in one 400. */
function fieldProblems(error: DomainError): Record<string, string> {
  return Object.fromEntries(
    Object.entries(error.context ?? {}).map(([key, value]) => [key, String(value)]),
  );
}
