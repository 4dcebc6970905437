import { ConflictError, isUniqueViolation, stampCreated, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { WorkspaceMembership } from '../entities/workspace-membership.entity';
import { Workspace } from '../entities/workspace.entity';
import { AccountStore } from './account-store';
import { PrincipalChanges } from './principal-cache';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    private readonly changes: PrincipalChanges,
    private readonly accounts: AccountStore,
  ) {}

  /** The caller's workspaces, in assignment order (the first is their default). */
  async listForPrincipal(principal: Principal): Promise<Workspace[]> {
    if (principal.workspaceIds.length === 0) return [];
    const found = await this.workspaces.findBy({
      id: In(principal.workspaceIds),
      organisationId: principal.organisationId,
    });
    const byId = new Map(found.map((workspace) => [workspace.id, workspace]));
    return principal.workspaceIds.flatMap((id) => byId.get(id) ?? []);
  }

  /** Creates a workspace with its default account, and makes the creator a member. */
  async create(principal: Principal, name: string): Promise<Workspace> {
    try {
      const workspace = await this.dataSource.transaction((manager) =>
        this.createWithDefaults(manager, principal.organisationId, name, principal.userId),
      );
      // The creator's cached memberships lack it, and they may use it in their next request.
      await this.changes.changed();
      return workspace;
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError('A workspace with this name already exists', { name });
      }
      throw error;
    }
  }

  /** Shared with the first-start bootstrap, inside the caller's transaction. */
  async createWithDefaults(
    manager: EntityManager,
    organisationId: string,
    name: string,
    creatorId: string,
  ): Promise<Workspace> {
    const workspace = stampCreated(manager.create(Workspace, { organisationId, name }), creatorId);
    await manager.insert(Workspace, workspace);
    await this.accounts.insertDefault(manager, workspace.id, name, creatorId);
    await manager.insert(WorkspaceMembership, {
      workspaceId: workspace.id,
      userId: creatorId,
      createdTime: new Date(),
      createdBy: creatorId,
    });
    return workspace;
  }
}
