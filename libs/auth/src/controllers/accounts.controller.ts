import {
  Authenticated,
  RequireWriter,
  ErrorBody,
  IdParam,
  mapPage,
  type Principal,
} from '@app/core';
import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  AccountPage,
  AccountResponse,
  CreateAccountDto,
  ListAccountsQuery,
  toAccountResponse,
} from '../dto/account.dto';
import { CurrentPrincipal, CurrentWorkspace } from '../guards/decorators';
import { AccountsService } from '../services/accounts.service';

@ApiTags('Accounts')
@Controller('accounts')
@Authenticated()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({ summary: 'Brand accounts of the workspace, newest first' })
  @ApiOkResponse({ type: AccountPage })
  @ApiBadRequestResponse({ type: ErrorBody })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListAccountsQuery,
  ): Promise<AccountPage> {
    return mapPage(await this.accounts.list(workspaceId, query), toAccountResponse);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One brand account' })
  @ApiOkResponse({ type: AccountResponse })
  @ApiNotFoundResponse({ type: ErrorBody })
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.accounts.get(workspaceId, id));
  }

  @Post()
  @RequireWriter()
  @ApiOperation({ summary: 'Add a brand account to the workspace' })
  @ApiCreatedResponse({ type: AccountResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateAccountDto,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.accounts.create(workspaceId, principal.userId, body.name));
  }
}
