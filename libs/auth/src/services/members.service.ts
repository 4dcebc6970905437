import {
  ConflictError,
  ForbiddenError,
  isUniqueViolation,
  NotFoundError,
  stampCreated,
  stampUpdated,
  type Principal,
} from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Repository } from 'typeorm';
import type { AddMemberDto } from '../dto/member.dto';
import { ApiKey } from '../entities/api-key.entity';
import { User } from '../entities/user.entity';
import { WorkspaceMembership } from '../entities/workspace-membership.entity';
import { Workspace } from '../entities/workspace.entity';
import { hashPassword } from './credentials';
import { PrincipalChanges } from './principal-cache';

export interface Member {
  user: User;
  workspaceIds: string[];
}

/** Organisation membership: only owners and admins reach this service (see the controller). */
@Injectable()
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(WorkspaceMembership)
    private readonly memberships: Repository<WorkspaceMembership>,
    private readonly changes: PrincipalChanges,
  ) {}

  async list(principal: Principal): Promise<Member[]> {
    const users = await this.users.find({
      where: { organisationId: principal.organisationId, removedTime: IsNull() },
      order: { id: 'ASC' },
    });
    if (users.length === 0) return [];
    const memberships = await this.memberships.find({
      where: { userId: In(users.map((user) => user.id)) },
      order: { createdTime: 'ASC', workspaceId: 'ASC' },
    });
    return users.map((user) => ({
      user,
      workspaceIds: memberships.filter((m) => m.userId === user.id).map((m) => m.workspaceId),
    }));
  }

  /**
   * Adds a user to the caller's organisation. Only an owner may make another owner, and an
   * admin may only assign workspaces they are a member of themselves (an owner: any of the
   * organisation's). A user who was removed earlier comes back with the new password and role;
   * their old API keys stay dead and their old tokens too (the token version moves on).
   */
  async add(principal: Principal, input: AddMemberDto): Promise<Member> {
    if (input.role === 'owner' && principal.role !== 'owner') {
      throw new ForbiddenError('Only an owner can add another owner');
    }
    const email = input.email.toLowerCase();
    const workspaceIds = [...new Set(input.workspaceIds)];
    const passwordHash = await hashPassword(input.password);

    let member: Member;
    try {
      member = await this.dataSource.transaction(async (manager) => {
        await this.assertWorkspacesInOrganisation(manager, principal.organisationId, workspaceIds);
        assertMayAssign(principal, workspaceIds);
        const existing = await manager.findOneBy(User, { email });
        let user: User;
        if (existing === null) {
          user = stampCreated(
            manager.create(User, {
              organisationId: principal.organisationId,
              email,
              passwordHash,
              role: input.role,
              removedTime: null,
              tokenVersion: 0,
              credentialsChangedTime: null,
            }),
            principal.userId,
          );
          await manager.insert(User, user);
        } else if (
          existing.removedTime !== null &&
          existing.organisationId === principal.organisationId
        ) {
          user = stampUpdated(
            Object.assign(existing, {
              passwordHash,
              role: input.role,
              removedTime: null,
              tokenVersion: existing.tokenVersion + 1,
              credentialsChangedTime: new Date(),
            }),
            principal.userId,
          );
          await manager.save(User, user);
        } else {
          throw new ConflictError('A user with this e-mail address already exists', { email });
        }
        const now = Date.now();
        await manager.insert(
          WorkspaceMembership,
          workspaceIds.map((workspaceId, index) => ({
            workspaceId,
            userId: user.id,
            // Keep the order given: the first workspace listed becomes the default one.
            createdTime: new Date(now + index),
            createdBy: principal.userId,
          })),
        );
        return { user, workspaceIds };
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError('A user with this e-mail address already exists', { email });
      }
      throw error;
    }
    // A re-added user's old keys and tokens stay dead, and their cached rows must go with them.
    await this.changes.changed();
    return member;
  }

  /**
   * Removes a user from the organisation: they can no longer sign in, their tokens and API
   * keys stop working on the next request, and their workspace assignments are dropped. The
   * token version moves on too, so their old tokens stay dead if the e-mail is added again.
   */
  async remove(principal: Principal, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await manager.findOneBy(User, {
        id: userId,
        organisationId: principal.organisationId,
        removedTime: IsNull(),
      });
      if (user === null) throw new NotFoundError('Member', userId);
      if (user.id === principal.userId) {
        throw new ConflictError('You cannot remove yourself from the organisation');
      }
      if (user.role === 'owner' && principal.role !== 'owner') {
        throw new ForbiddenError('Only an owner can remove an owner');
      }
      const now = new Date();
      await manager.update(
        User,
        { id: user.id },
        {
          removedTime: now,
          tokenVersion: () => 'token_version + 1',
          credentialsChangedTime: now,
          updatedTime: now,
          updatedBy: principal.userId,
        },
      );
      await manager.delete(WorkspaceMembership, { userId: user.id });
      await manager.update(
        ApiKey,
        { userId: user.id, revokedTime: IsNull() },
        { revokedTime: now, updatedTime: now, updatedBy: principal.userId },
      );
    });
    await this.changes.changed();
  }

  private async assertWorkspacesInOrganisation(
    manager: EntityManager,
    organisationId: string,
    workspaceIds: string[],
  ): Promise<void> {
    if (workspaceIds.length === 0) return;
    const found = await manager.findBy(Workspace, { id: In(workspaceIds), organisationId });
    const known = new Set(found.map((workspace) => workspace.id));
    const missing = workspaceIds.find((id) => !known.has(id));
    if (missing !== undefined) throw new NotFoundError('Workspace', missing);
  }
}

/**
 * An admin hands out access only to workspaces they can act in themselves, so an admin of one
 * brand's workspace cannot create a member (or another admin) for a workspace they were kept
 * out of. Owners manage the whole organisation.
 */
function assertMayAssign(principal: Principal, workspaceIds: string[]): void {
  if (principal.role === 'owner') return;
  const foreign = workspaceIds.find((id) => !principal.workspaceIds.includes(id));
  if (foreign !== undefined) {
    throw new ForbiddenError('Admins can only assign workspaces they are a member of', {
      workspaceId: foreign,
    });
  }
}
