import { ForbiddenError, InvalidInputError, type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { ChangePasswordDto } from '../dto/change-password.dto';
import type { MeResponse } from '../dto/me.dto';
import { weakPasswordReason } from '../dto/password-policy';
import { Organisation } from '../entities/organisation.entity';
import { User } from '../entities/user.entity';
import { hashPassword, verifyPassword } from './credentials';
import { LoginThrottle } from './login-throttle.service';
import { WorkspacesService } from './workspaces.service';
import { PrincipalChanges } from './principal-cache';

@Injectable()
export class MeService {
  constructor(
    @InjectRepository(Organisation) private readonly organisations: Repository<Organisation>,
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly workspaces: WorkspacesService,
    private readonly throttle: LoginThrottle,
    private readonly changes: PrincipalChanges,
  ) {}

  async describe(principal: Principal): Promise<MeResponse> {
    const [organisation, workspaces] = await Promise.all([
      this.organisations.findOneByOrFail({ id: principal.organisationId }),
      this.workspaces.listForPrincipal(principal),
    ]);
    return {
      user: { id: principal.userId, email: principal.email, role: principal.role },
      organisation: { id: organisation.id, name: organisation.name },
      workspaces: workspaces.map((workspace, index) => ({
        id: workspace.id,
        name: workspace.name,
        role: principal.role,
        isDefault: index === 0,
      })),
      apiKeyId: principal.apiKeyId ?? null,
    };
  }

  /**
   * Changes the caller's password and raises their token version, so every bearer token issued
   * before (this request's included) stops working; API keys are separate credentials and stay.
   * A wrong current password is a 403 and counts as a failed sign-in of the account, so a
   * stolen token cannot be used to guess the password faster than the sign-in form allows.
   */
  async changePassword(
    principal: Principal,
    input: ChangePasswordDto,
    clientIp: string,
  ): Promise<void> {
    const weak = weakPasswordReason(input.newPassword, principal.email);
    if (weak !== null) throw new InvalidInputError({ newPassword: weak });

    await this.throttle.assertAllowed(principal.email, clientIp);
    const user = await this.users.findOneByOrFail({ id: principal.userId });
    if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
      await this.throttle.recordFailure(principal.email, clientIp);
      throw new ForbiddenError('The current password is wrong');
    }

    const now = new Date();
    await this.users.update(
      { id: user.id },
      {
        passwordHash: await hashPassword(input.newPassword),
        tokenVersion: () => 'token_version + 1',
        credentialsChangedTime: now,
        updatedTime: now,
        updatedBy: principal.userId,
      },
    );
    await this.changes.changed();
  }
}
