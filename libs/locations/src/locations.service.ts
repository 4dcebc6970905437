import {
  likeContains,
  NotFoundError,
  paginate,
  sqlDialect,
  stampCreated,
  type Page,
} from '@app/core';
import { HolderChanges, Pass, PassesService, type HolderChangeSet } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import type { ListLocationsQuery } from './dto/list-locations.query';
import type { LocationDto } from './dto/location.dto';
import type { LocationView } from './dto/location.response';
import { PassLocation } from './entities/pass-location.entity';
import {
  assertRoomForEnabledLocation,
  MAX_ENABLED_LOCATIONS_PER_PASS,
  passesToLock,
} from './location-rules';

/** What a POST or PUT body sets on a location. */
type LocationFields = Pick<
  PassLocation,
  'passId' | 'name' | 'latitude' | 'longitude' | 'altitude' | 'relevantText' | 'enabled'
>;

/**
 * Lock-screen locations of passes. Two rules hold for every write:
 *
 * - A pass has at most 10 enabled locations (Apple Wallet reads no more). The count and the
 *   write run in one transaction that first locks the pass row, so concurrent writers of one
 *   pass take turns and the 11th is refused (409), never silently dropped.
 * - A location change is a content change of its pass: the pass `version` moves on (and its
 *   `updated_time`), in the same transaction, which is what makes WalletA devices fetch it;
 *   the pass change hooks run in that transaction too, as for any change holders see.
 *
 * The lock is that very version update (`UPDATE pass ...` locks the row on MySQL and works on
 * SQLite alike, where the connection gate already runs one transaction at a time). Writers
 * that change an existing location lock the location row first, then its passes in id order,
 * so no two writers ever wait on each other in a circle.
 */
@Injectable()
export class LocationsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(PassLocation) private readonly locations: Repository<PassLocation>,
    @InjectRepository(Pass) private readonly passRows: Repository<Pass>,
    private readonly passes: PassesService,
    private readonly holderChanges: HolderChanges,
  ) {}

  async create(workspaceId: string, actorId: string, input: LocationDto): Promise<LocationView> {
    const pass = await this.referencedPass(workspaceId, input);
    const location = stampCreated(
      this.locations.create({ workspaceId, ...this.fields(input, pass) }),
      actorId,
    );
    await this.transaction(async (changes) => {
      if (location.passId !== null) {
        await this.touchPass(changes, workspaceId, location.passId, location.createdTime, true);
        if (location.enabled) await this.checkRoom(changes.manager, workspaceId, location.passId);
      }
      await changes.manager.insert(PassLocation, location);
    });
    return { location, accountId: pass?.accountId ?? null };
  }

  /** Replaces every writable field; a location may move to another pass or lose its pass. */
  async update(
    workspaceId: string,
    actorId: string,
    id: string,
    input: LocationDto,
  ): Promise<LocationView> {
    const pass = await this.referencedPass(workspaceId, input);
    const fields = this.fields(input, pass);
    const location = await this.transaction(async (changes) => {
      const { manager } = changes;
      const now = new Date();
      const current = await this.lockLocation(manager, workspaceId, actorId, id, now);
      for (const passId of passesToLock(current.passId, fields.passId)) {
        // The pass it moves to must still exist; the one it leaves may have been deleted.
        await this.touchPass(changes, workspaceId, passId, now, passId === fields.passId);
      }
      if (fields.passId !== null && fields.enabled) {
        await this.checkRoom(manager, workspaceId, fields.passId, id);
      }
      await manager.update(PassLocation, { id, workspaceId }, fields);
      return Object.assign(current, fields, { updatedTime: now, updatedBy: actorId });
    });
    return { location, accountId: pass?.accountId ?? null };
  }

  async remove(workspaceId: string, actorId: string, id: string): Promise<void> {
    await this.transaction(async (changes) => {
      const now = new Date();
      const current = await this.lockLocation(changes.manager, workspaceId, actorId, id, now);
      if (current.passId !== null) {
        await this.touchPass(changes, workspaceId, current.passId, now, false);
      }
      await changes.manager.delete(PassLocation, { id, workspaceId });
    });
  }

  async get(workspaceId: string, id: string): Promise<LocationView> {
    const location = await this.locations.findOneBy({ id, workspaceId });
    if (location === null) throw new NotFoundError('Location', id);
    const [view] = await this.withAccounts(workspaceId, [location]);
    return view;
  }

  async list(workspaceId: string, query: ListLocationsQuery): Promise<Page<LocationView>> {
    const builder = this.locations
      .createQueryBuilder('location')
      .where('location.workspace_id = :workspaceId', { workspaceId });
    if (query.keyword !== undefined && query.keyword !== '') {
      builder.andWhere("LOWER(location.name) LIKE :keyword ESCAPE '!'", {
        keyword: likeContains(query.keyword),
      });
    }
    if (query.name !== undefined) {
      if (sqlDialect(this.dataSource).isMysql) {
        // The column's collation (utf8mb4_unicode_ci) ignores case and trailing spaces, and
        // location names are not unique, so filtering the exact value in code would leave
        // short or empty pages. A binary collation on the parameter makes the comparison
        // case-sensitive (the column is converted to it; this works whatever the column's
        // character set), and equal character lengths rule out "Store" = "Store " (every
        // MySQL/MariaDB collation that both dialects share pads with spaces).
        builder.andWhere(
          'location.name = :name COLLATE utf8mb4_bin AND CHAR_LENGTH(location.name) = :nameLength',
          { name: query.name, nameLength: [...query.name].length },
        );
      } else {
        // SQLite compares text with its BINARY collation by default: exact already.
        builder.andWhere('location.name = :name', { name: query.name });
      }
    }
    if (query.passSerialNumbers !== undefined && query.passSerialNumbers.length > 0) {
      builder.andWhere('location.pass_id IN (:...passIds)', { passIds: query.passSerialNumbers });
    }
    if (query.ids !== undefined && query.ids.length > 0) {
      builder.andWhere('location.id IN (:...ids)', { ids: query.ids });
    }
    if (query.id !== undefined) builder.andWhere('location.id = :id', { id: query.id });

    const page = await paginate(builder, query);
    return { ...page, items: await this.withAccounts(workspaceId, page.items) };
  }

  /** The locations the WalletA pass package carries: enabled ones, at most 10, oldest first. */
  async enabledForPass(workspaceId: string, passId: string): Promise<PassLocation[]> {
    return this.locations.find({
      where: { workspaceId, passId, enabled: true },
      order: { id: 'ASC' },
      take: MAX_ENABLED_LOCATIONS_PER_PASS,
    });
  }

  /** The pass named in the body: of this workspace and not deleted, else 404 with its id. */
  private async referencedPass(workspaceId: string, input: LocationDto): Promise<Pass | null> {
    const ref = input.walletPass;
    return ref === undefined || ref === null ? null : this.passes.getEntity(workspaceId, ref.id);
  }

  private fields(input: LocationDto, pass: Pass | null): LocationFields {
    return {
      passId: pass?.id ?? null,
      name: input.name,
      latitude: input.latitude,
      longitude: input.longitude,
      altitude: input.altitude ?? null,
      relevantText: input.relevantText,
      enabled: input.enabled ?? true,
    };
  }

  /**
   * Locks the location row (by writing its update stamp) and reads it afterwards, so the pass
   * it belongs to cannot change before this transaction ends.
   */
  private async lockLocation(
    manager: EntityManager,
    workspaceId: string,
    actorId: string,
    id: string,
    now: Date,
  ): Promise<PassLocation> {
    const locked = await manager.update(
      PassLocation,
      { id, workspaceId },
      { updatedTime: now, updatedBy: actorId },
    );
    const location =
      locked.affected === 0 ? null : await manager.findOneBy(PassLocation, { id, workspaceId });
    if (location === null) throw new NotFoundError('Location', id);
    return location;
  }

  /**
   * Moves the pass version on, which also locks the pass row until the transaction ends (and
   * runs its change hooks before the commit). With `mustExist`, a pass deleted meanwhile is a 404.
   */
  private async touchPass(
    changes: HolderChangeSet,
    workspaceId: string,
    passId: string,
    now: Date,
    mustExist: boolean,
  ): Promise<void> {
    const written = await changes.bumpPassVersion(
      mustExist ? { id: passId, workspaceId, deletedTime: IsNull() } : { id: passId, workspaceId },
      {},
      { now },
    );
    if (mustExist && written === null) throw new NotFoundError('Pass', passId);
  }

  /** Call with the pass row locked: 409 when it has no room for one more enabled location. */
  private async checkRoom(
    manager: EntityManager,
    workspaceId: string,
    passId: string,
    exceptLocationId?: string,
  ): Promise<void> {
    const enabled = await manager.count(PassLocation, {
      where: {
        workspaceId,
        passId,
        enabled: true,
        ...(exceptLocationId === undefined ? {} : { id: Not(exceptLocationId) }),
      },
    });
    assertRoomForEnabledLocation(passId, enabled);
  }

  /** Adds the account of each location's pass (a location has no account of its own). */
  private async withAccounts(
    workspaceId: string,
    locations: PassLocation[],
  ): Promise<LocationView[]> {
    const passIds = [
      ...new Set(locations.flatMap((location) => (location.passId ? [location.passId] : []))),
    ];
    const passes =
      passIds.length === 0
        ? []
        : await this.passRows.find({
            select: { id: true, accountId: true },
            where: { workspaceId, id: In(passIds) },
          });
    const accountOf = new Map(passes.map((pass) => [pass.id, pass.accountId]));
    return locations.map((location) => ({
      location,
      accountId: location.passId === null ? null : (accountOf.get(location.passId) ?? null),
    }));
  }

  /**
   * On MySQL/MariaDB: READ COMMITTED, so the count after taking the pass lock sees every
   * location committed by the writers that held the lock before (under REPEATABLE READ a
   * snapshot taken by an earlier read in the transaction could hide them). SQLite runs one
   * transaction at a time (see sqlite-gate.ts) and is serialisable anyway.
   */
  private transaction<T>(work: (changes: HolderChangeSet) => Promise<T>): Promise<T> {
    return this.holderChanges.transaction(work, sqlDialect(this.dataSource).readCommitted);
  }
}
