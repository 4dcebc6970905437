import { NotFoundError, paginate, type Page, type PageQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Account } from '../entities/account.entity';
import { AccountStore } from './account-store';

/**
 * Brand accounts of a workspace. Every query takes the workspace first; writes and the default
 * account go through {@link AccountStore}.
 */
@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly store: AccountStore,
  ) {}

  list(workspaceId: string, page: PageQuery): Promise<Page<Account>> {
    const query = this.accounts
      .createQueryBuilder('account')
      .where('account.workspace_id = :workspaceId', { workspaceId });
    return paginate(query, page);
  }

  /** An account of this workspace; one of another workspace is "not found", never shown. */
  async get(workspaceId: string, id: string): Promise<Account> {
    const account = await this.accounts.findOneBy({ workspaceId, id });
    if (account === null) throw new NotFoundError('Account', id);
    return account;
  }

  /** The account passes use when none is given. Every workspace is created with one. */
  getDefault(workspaceId: string): Promise<Readonly<Account>> {
    return this.store.defaultOf(workspaceId);
  }

  create(workspaceId: string, actorId: string, name: string): Promise<Account> {
    return this.store.insertOther(this.accounts.manager, workspaceId, name, actorId);
  }
}
