import {
  BoundedMap,
  EntityRows,
  NotFoundError,
  paginate,
  rawQuery,
  stampCreated,
  type Page,
  type PageQuery,
} from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Account } from '../entities/account.entity';

/** Workspaces whose default account is kept: far more than one instance serves at once. */
const MAX_DEFAULTS = 10_000;

/** Brand accounts of a workspace. Every query takes the workspace first. */
@Injectable()
export class AccountsService {
  private readonly accountRows: EntityRows<Account>;
  /**
   * Each workspace's default account, read once per process. The row is inserted in the
   * transaction that creates its workspace and never updated or deleted afterwards (no route
   * renames, moves or deletes accounts or workspaces; accounts.service.spec.ts fails when code
   * starts writing the table otherwise), so what was read once stays true on every instance and
   * needs no invalidation. It was a round trip on every pass created without an account.
   */
  private readonly defaults = new BoundedMap<string, Account>(MAX_DEFAULTS);

  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly dataSource: DataSource,
  ) {
    this.accountRows = new EntityRows(dataSource, Account, 'a');
  }

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
  async getDefault(workspaceId: string): Promise<Readonly<Account>> {
    const known = this.defaults.get(workspaceId);
    if (known !== undefined) return known;
    // Plain SQL: every pass created without an account reads it, and `findOne`'s query
    // building cost more than the query (6 % of the service's CPU under bench:api's POST load).
    const [row] = await rawQuery<Record<string, unknown>[]>(
      this.dataSource,
      `SELECT ${this.accountRows.select} FROM account a ` +
        'WHERE a.workspace_id = ? AND a.is_default = 1 ORDER BY a.id ASC LIMIT 1',
      [workspaceId],
    );
    if (row === undefined) throw new NotFoundError('Default account of workspace', workspaceId);
    const account = this.accountRows.read(row);
    this.defaults.set(workspaceId, account);
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
