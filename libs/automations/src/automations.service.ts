import { AudiencesService } from '@app/audiences';
import {
  ConflictError,
  InvalidInputError,
  isUniqueViolation,
  NotFoundError,
  paginate,
  sqlDialect,
  stampCreated,
  type Page,
  type PageQuery,
} from '@app/core';
import { PassesService, type Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import {
  MAX_AUTOMATIONS_PER_PASS,
  readActions,
  readTrigger,
  type AutomationAction,
  type AutomationTrigger,
} from './automation-rules';
import { Automation } from './automation.entity';
import type { CreateAutomationDto, UpdateAutomationDto } from './dto/automation.dto';

/** An automation's inputs as read: what is stored. */
type AutomationInputs = Pick<Automation, 'trigger' | 'audience' | 'actions'>;

/**
 * Automations of a pass: at most 50 per pass (409), names unique per pass (409), every input
 * checked against the pass on every write and refused whole with each problem keyed by its path
 * (400), nothing stored then.
 */
@Injectable()
export class AutomationsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Automation) private readonly automations: Repository<Automation>,
    private readonly passes: PassesService,
    private readonly audiences: AudiencesService,
  ) {}

  async create(
    workspaceId: string,
    actorId: string,
    passId: string,
    input: CreateAutomationDto,
  ): Promise<Automation> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const inputs = this.read(pass, input, null);
    const automation = stampCreated(
      this.automations.create({
        workspaceId,
        passId: pass.id,
        name: input.name,
        ...inputs,
        enabled: input.enabled ?? true,
        runCount: 0,
        skippedCount: 0,
        failedCount: 0,
        lastRunTime: null,
      }),
      actorId,
    );
    await this.writing(input.name, () =>
      this.dataSource.transaction(async (manager) => {
        // Creates for one pass take turns (SQLite runs one transaction at a time already), so
        // two at once cannot both take the 50th place.
        if (sqlDialect(manager.connection).rowLocks) {
          await manager.query('SELECT id FROM pass WHERE id = ? FOR UPDATE', [pass.id]);
        }
        const count = await manager.countBy(Automation, { workspaceId, passId: pass.id });
        if (count >= MAX_AUTOMATIONS_PER_PASS) {
          throw new ConflictError(
            `A pass can have at most ${MAX_AUTOMATIONS_PER_PASS} automations`,
            { passId: pass.id, limit: MAX_AUTOMATIONS_PER_PASS },
          );
        }
        await manager.save(automation, { reload: false });
      }),
    );
    return automation;
  }

  async list(workspaceId: string, passId: string, query: PageQuery): Promise<Page<Automation>> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const builder = this.automations
      .createQueryBuilder('automation')
      .where('automation.workspace_id = :workspaceId AND automation.pass_id = :passId', {
        workspaceId,
        passId: pass.id,
      });
    return paginate(builder, query);
  }

  async get(workspaceId: string, passId: string, automationId: string): Promise<Automation> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    return this.find(workspaceId, pass.id, automationId);
  }

  async update(
    workspaceId: string,
    actorId: string,
    passId: string,
    automationId: string,
    input: UpdateAutomationDto,
  ): Promise<Automation> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const automation = await this.find(workspaceId, pass.id, automationId);
    const inputs = this.read(pass, input, automation);
    const changed = Object.assign(automation, {
      name: input.name ?? automation.name,
      ...inputs,
      enabled: input.enabled ?? automation.enabled,
      updatedTime: new Date(),
      updatedBy: actorId,
    });
    // Loaded above by workspace, pass and id: saved by its id.
    await this.writing(changed.name, () => this.automations.save(changed, { reload: false }));
    return changed;
  }

  async remove(workspaceId: string, passId: string, automationId: string): Promise<void> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const result = await this.automations.delete({
      id: automationId,
      workspaceId,
      passId: pass.id,
    });
    if (result.affected === 0) throw new NotFoundError('Automation', automationId);
  }

  private async find(workspaceId: string, passId: string, id: string): Promise<Automation> {
    const automation = await this.automations.findOneBy({ id, workspaceId, passId });
    if (automation === null) throw new NotFoundError('Automation', id);
    return automation;
  }

  /**
   * The inputs given, read against the pass, with the current automation's for those absent
   * (PATCH); every problem of the body in one 400. Kept inputs are not read again: they were
   * checked when written (an audience keeps a field the pass has lost since, as a segment does).
   */
  private read(
    pass: Pick<Pass, 'passMetadata'>,
    input: Partial<Pick<CreateAutomationDto, 'trigger' | 'audience' | 'actions'>>,
    current: AutomationInputs | null,
  ): AutomationInputs {
    const problems: Record<string, string> = {};
    let trigger: AutomationTrigger | undefined = current?.trigger;
    if (input.trigger !== undefined && input.trigger !== null) {
      const read = readTrigger(input.trigger);
      if (read.problems !== undefined) Object.assign(problems, read.problems);
      else trigger = read.trigger;
    }
    const audience = input.audience === undefined ? (current?.audience ?? null) : input.audience;
    if (input.audience !== undefined && input.audience !== null) {
      Object.assign(problems, this.audienceProblems(pass, input.audience));
    }
    if (trigger?.on === 'holder.entered' && audience === null) {
      problems.audience = 'is required for the holder.entered trigger';
    }
    let actions: AutomationAction[] | undefined = current?.actions;
    if (input.actions !== undefined && input.actions !== null) {
      const read = readActions(pass, input.actions);
      if (read.problems !== undefined) Object.assign(problems, read.problems);
      else actions = read.actions;
    }
    if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
    // Both are set: given (the DTO requires them on create) or kept from `current`.
    return { trigger: trigger!, audience, actions: actions! };
  }

  private audienceProblems(pass: Pick<Pass, 'passMetadata'>, audience: unknown) {
    try {
      this.audiences.read(pass, audience);
      return {};
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return Object.fromEntries(
        Object.entries(error.context ?? {}).map(([key, value]) => [key, String(value)]),
      );
    }
  }

  private async writing<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new ConflictError('An automation with this name already exists for the pass', {
        name,
      });
    }
  }
}
