import { BoundedMap, EntityRows, NotFoundError, rawQuery, stampCreated } from '@app/core';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Account } from '../entities/account.entity';

/** Workspaces whose default account is kept: far more than one instance serves at once. */
const MAX_DEFAULTS = 10_000;

/**
 * The writes of the account table, and each workspace's default account, read once per process
 * and kept without asking again or being told of changes: every pass or campaign created without
 * an account reads it.
 *
 * That is right because a default account, once kept, cannot change, and this class is what
 * makes it so: the service writes accounts here only, and here there are only inserts. A
 * workspace's default account is inserted with the workspace, in its transaction; any other
 * account is inserted as not the default; nothing renames, moves or deletes an account, and no
 * workspace is deleted. A workspace without a default is not kept (it is an error, read again
 * next time), so no insert can leave a stale entry behind on any instance; each insert still
 * drops its workspace's entry, so nothing kept outlives a write made here.
 */
@Injectable()
export class AccountStore {
  private readonly rows: EntityRows<Account>;
  private readonly defaults = new BoundedMap<string, Account>(MAX_DEFAULTS);

  constructor(private readonly dataSource: DataSource) {
    this.rows = new EntityRows(dataSource, Account, 'a');
  }

  /** The account passes use when none is given. Every workspace is created with one. */
  async defaultOf(workspaceId: string): Promise<Readonly<Account>> {
    const known = this.defaults.get(workspaceId);
    if (known !== undefined) return known;
    // Plain SQL: every pass created without an account reads it, and `findOne`'s query
    // building cost more than the query (6 % of the service's CPU under bench:api's POST load).
    const [row] = await rawQuery<Record<string, unknown>[]>(
      this.dataSource,
      `SELECT ${this.rows.select} FROM account a ` +
        'WHERE a.workspace_id = ? AND a.is_default = 1 ORDER BY a.id ASC LIMIT 1',
      [workspaceId],
    );
    if (row === undefined) throw new NotFoundError('Default account of workspace', workspaceId);
    const account = this.rows.read(row);
    this.defaults.set(workspaceId, account);
    return account;
  }

  /** A new workspace's default account, in the transaction (`manager`) that creates it. */
  insertDefault(
    manager: EntityManager,
    workspaceId: string,
    name: string,
    actorId: string,
  ): Promise<Account> {
    return this.insert(manager, { workspaceId, name, isDefault: true }, actorId);
  }

  /** Another account of the workspace: never its default. */
  insertOther(
    manager: EntityManager,
    workspaceId: string,
    name: string,
    actorId: string,
  ): Promise<Account> {
    return this.insert(manager, { workspaceId, name, isDefault: false }, actorId);
  }

  private async insert(
    manager: EntityManager,
    fields: Pick<Account, 'workspaceId' | 'name' | 'isDefault'>,
    actorId: string,
  ): Promise<Account> {
    const account = stampCreated(manager.create(Account, fields), actorId);
    await manager.insert(Account, account);
    this.defaults.delete(fields.workspaceId);
    return account;
  }
}
