import { type Principal } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { MeResponse } from '../dto/me.dto';
import { Organisation } from '../entities/organisation.entity';
import { WorkspacesService } from './workspaces.service';

@Injectable()
export class MeService {
  constructor(
    @InjectRepository(Organisation) private readonly organisations: Repository<Organisation>,
    private readonly workspaces: WorkspacesService,
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
}
