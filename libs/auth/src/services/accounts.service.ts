import { NotFoundError, paginate, stampCreated, type Page, type PageQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Account } from '../entities/account.entity';

/** Brand accounts of a workspace. Every query takes the workspace first. */
@Injectable()
export class AccountsService {
  constructor(@InjectRepository(Account) private readonly accounts: Repository<Account>) {}

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
  async getDefault(workspaceId: string): Promise<Account> {
    const account = await this.accounts.findOne({
      where: { workspaceId, isDefault: true },
      order: { id: 'ASC' },
    });
    if (account === null) throw new NotFoundError('Default account of workspace', workspaceId);
    return account;
  }

  async create(workspaceId: string, actorId: string, name: string): Promise<Account> {
    const account = stampCreated(
      this.accounts.create({ workspaceId, name, isDefault: false }),
      actorId,
    );
    await this.accounts.insert(account);
    return account;
  }
}
