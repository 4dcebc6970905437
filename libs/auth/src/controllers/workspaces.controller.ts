import { Authenticated, ErrorBody, type Principal } from '@app/core';
import { Body, Controller, Get, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateWorkspaceDto, toWorkspaceResponse, WorkspaceResponse } from '../dto/workspace.dto';
import { CurrentPrincipal } from '../guards/decorators';
import { WorkspacesService } from '../services/workspaces.service';

@ApiTags('Identity')
@Controller('workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    summary: "The caller's workspaces; the first is used when x-workspace-id is absent",
  })
  @ApiOkResponse({ type: [WorkspaceResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<WorkspaceResponse[]> {
    return (await this.workspaces.listForPrincipal(principal)).map(toWorkspaceResponse);
  }

  @Post()
  @Authenticated({ roles: ['owner', 'admin'] })
  @ApiOperation({
    summary: 'Create a workspace (with its default account); owners and admins only',
  })
  @ApiCreatedResponse({ type: WorkspaceResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiConflictResponse({ description: 'A workspace with this name exists', type: ErrorBody })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWorkspaceDto,
  ): Promise<WorkspaceResponse> {
    return toWorkspaceResponse(await this.workspaces.create(principal, body.name));
  }
}
