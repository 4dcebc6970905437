import {
  ConflictError,
  isUniqueViolation,
  NotFoundError,
  paginate,
  stampCreated,
  type Page,
  type PageQuery,
} from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PassesService } from '@app/passes';
import { AudiencesService } from './audiences.service';
import type { CreateSegmentDto, UpdateSegmentDto } from './dto/audience.dto';
import { Segment } from './segment.entity';

/**
 * Says why a segment cannot be deleted now (e.g. a Draft or Scheduled notification uses it), or
 * null. Modules above this one register theirs, so segments know nothing of them.
 */
export type SegmentUseCheck = (workspaceId: string, segmentId: string) => Promise<string | null>;

/**
 * Segments: named audiences of a pass. Names are unique per pass (409); the
 * audience is checked against the pass's face fields on every write; a segment in use cannot
 * be deleted (409).
 */
@Injectable()
export class SegmentsService {
  private readonly useChecks: SegmentUseCheck[] = [];

  constructor(
    @InjectRepository(Segment) private readonly segments: Repository<Segment>,
    private readonly passes: PassesService,
    private readonly audiences: AudiencesService,
  ) {}

  registerUseCheck(check: SegmentUseCheck): void {
    this.useChecks.push(check);
  }

  async create(
    workspaceId: string,
    actorId: string,
    passId: string,
    input: CreateSegmentDto,
  ): Promise<Segment> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    this.audiences.read(pass, input.audience);
    const segment = stampCreated(
      this.segments.create({
        workspaceId,
        passId: pass.id,
        name: input.name,
        audience: input.audience,
      }),
      actorId,
    );
    await this.writing(input.name, () => this.segments.save(segment, { reload: false }));
    return segment;
  }

  async list(workspaceId: string, passId: string, query: PageQuery): Promise<Page<Segment>> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const builder = this.segments
      .createQueryBuilder('segment')
      .where('segment.workspace_id = :workspaceId AND segment.pass_id = :passId', {
        workspaceId,
        passId: pass.id,
      });
    return paginate(builder, query);
  }

  async get(workspaceId: string, passId: string, segmentId: string): Promise<Segment> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    return this.audiences.segment(workspaceId, pass.id, segmentId);
  }

  async update(
    workspaceId: string,
    actorId: string,
    passId: string,
    segmentId: string,
    input: UpdateSegmentDto,
  ): Promise<Segment> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const segment = await this.audiences.segment(workspaceId, pass.id, segmentId);
    if (input.audience !== undefined) this.audiences.read(pass, input.audience);
    if (input.name === undefined && input.audience === undefined) return segment;
    const changed = Object.assign(segment, {
      name: input.name ?? segment.name,
      audience: input.audience ?? segment.audience,
      updatedTime: new Date(),
      updatedBy: actorId,
    });
    await this.writing(changed.name, () => this.segments.save(changed, { reload: false }));
    return changed;
  }

  async remove(workspaceId: string, passId: string, segmentId: string): Promise<void> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const segment = await this.audiences.segment(workspaceId, pass.id, segmentId);
    for (const check of this.useChecks) {
      const reason = await check(workspaceId, segment.id);
      if (reason !== null) throw new ConflictError(reason, { segmentId: segment.id });
    }
    const result = await this.segments.delete({ id: segment.id, workspaceId, passId: pass.id });
    if (result.affected === 0) throw new NotFoundError('Segment', segmentId);
  }

  private async writing<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new ConflictError('A segment with this name already exists for the pass', { name });
    }
  }
}
