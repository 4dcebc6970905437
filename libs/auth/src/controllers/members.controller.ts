import { Authenticated, ErrorBody, type Principal } from '@app/core';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AddMemberDto, MemberResponse, toMemberResponse } from '../dto/member.dto';
import { CurrentPrincipal } from '../guards/decorators';
import { UserIdParam } from '../dto/user-id-param';
import { MembersService } from '../services/members.service';

@ApiTags('Identity')
@Controller('organisation/members')
@Authenticated({ roles: ['owner', 'admin'] })
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiOperation({ summary: 'Members of the organisation' })
  @ApiOkResponse({ type: [MemberResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<MemberResponse[]> {
    return (await this.members.list(principal)).map((m) =>
      toMemberResponse(m.user, m.workspaceIds),
    );
  }

  @Post()
  @ApiOperation({ summary: 'Add a member with a role and workspaces' })
  @ApiCreatedResponse({ type: MemberResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ description: 'A workspace id is unknown', type: ErrorBody })
  @ApiConflictResponse({ description: 'The e-mail address is taken', type: ErrorBody })
  async add(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AddMemberDto,
  ): Promise<MemberResponse> {
    const member = await this.members.add(principal, body);
    return toMemberResponse(member.user, member.workspaceIds);
  }

  @Delete(':userId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a member; their tokens and API keys stop working at once' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ description: 'Removing yourself', type: ErrorBody })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param() { userId }: UserIdParam,
  ): Promise<void> {
    await this.members.remove(principal, userId);
  }
}
