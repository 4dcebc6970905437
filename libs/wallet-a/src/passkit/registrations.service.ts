import {
  APP_CONFIG,
  EntityRows,
  GroupCommit,
  newId,
  ServiceEvents,
  sqlDialect,
  type AppConfig,
  type RecordedEvent,
} from '@app/core';
import { addHolderCounters, Holder, lockPassVersion, moveHolderCounters, Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull, Not } from 'typeorm';
import {
  groupKey,
  planRegistrations,
  type DeviceGroup,
  type KnownRegistration,
  type PlannedWrite,
  type RegistrationRequest,
} from './registration-plan';
import { Registration } from './registration.entity';

/** Registrations of one pass written in one transaction at most (a launch's burst). */
const MAX_REGISTRATIONS_PER_TURN = 500;

/** A registration as the web service hands it over: the request and what it is of. */
export interface DeviceRegistration extends RegistrationRequest {
  pass: Pick<Pass, 'id' | 'workspaceId'>;
}

/**
 * Device registrations and the WalletA counters they drive, changed together in one
 * transaction: issued = devices that ever registered the pass, active = registered now.
 * Each counter moves only when a conditional write really changed a registration, so
 * concurrent and repeated calls from devices leave the counters right. A registration of a
 * holder's copy moves the pass's counters the same way, and the holder's `appleInstalledCount`
 * with them. Registrations are keyed by (device, serial number): a device may hold the shared
 * pass and holders' copies side by side.
 *
 * A registration with a valid token is never refused. The registrations of one
 * pass take turns on its row lock, so those that arrive together are written together
 * ({@link GroupCommit}); a source's (or a holder's copy's) active devices are capped, newer ones
 * replacing the oldest ({@link planRegistrations}).
 */
@Injectable()
export class RegistrationsService {
  private readonly turns = new GroupCommit<DeviceRegistration, 'created' | 'existing'>(
    (passId, registrations) => this.writeTurn(passId, registrations),
    MAX_REGISTRATIONS_PER_TURN,
  );

  private readonly registrationRows: EntityRows<Registration>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: ServiceEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.registrationRows = new EntityRows(dataSource, Registration, 'r');
  }

  /** `created` for a new (or returning) device, `existing` when it was registered already. */
  register(registration: DeviceRegistration): Promise<'created' | 'existing'> {
    return this.turns.submit(registration.pass.id, registration);
  }

  private writeTurn(
    passId: string,
    registrations: DeviceRegistration[],
  ): Promise<('created' | 'existing')[]> {
    const { workspaceId } = registrations[0].pass;
    return this.dataSource.transaction(async (manager) => {
      // Registration changes of one pass take turns (else MySQL deadlocks two devices at once).
      const passVersion = (await lockPassVersion(manager, passId)) ?? 0;
      // The versions the devices were just given: the pass's, and each holder copy's.
      const holderVersions = await this.holderVersions(manager, registrations);
      const now = new Date();
      const known = await this.knownRegistrations(manager, registrations);
      const active = await this.activeByGroup(manager, passId, registrations);
      const { devicesPerSource, devicesPerHolder } = this.config.walletA;
      const plan = planRegistrations(
        registrations,
        known,
        (group) => active.get(groupKey(group)) ?? 0,
        (group) => (group.source === undefined ? devicesPerHolder : devicesPerSource),
      );
      const held = (request: DeviceRegistration) => ({
        heldPassVersion: passVersion,
        heldHolderVersion:
          request.holderId === null ? 0 : (holderVersions.get(request.holderId) ?? 0),
      });

      const kept = new Set(plan.refreshed.map((row) => row.id));
      for (const { group, count } of plan.retireOldest) {
        await this.retireOldest(manager, group, count, kept, now);
      }
      for (const { id, request } of plan.refreshed) {
        await manager.update(
          Registration,
          { id },
          { pushToken: request.pushToken, updatedTime: now, ...held(request) },
        );
      }
      for (const { id, write } of plan.returning) {
        await manager.update(
          Registration,
          { id, removedTime: Not(IsNull()) },
          {
            removedTime: write.retired ? now : null,
            pushToken: write.request.pushToken,
            source: write.request.source,
            updatedTime: now,
            ...held(write.request),
          },
        );
      }
      await this.registrationRows.insert(
        manager,
        plan.inserts.map(({ request, retired }) =>
          Object.assign(new Registration(), {
            id: newId(),
            workspaceId,
            passId,
            holderId: request.holderId,
            serialNumber: request.serialNumber,
            deviceLibraryId: request.deviceLibraryId,
            pushToken: request.pushToken,
            source: request.source,
            createdTime: now,
            updatedTime: now,
            removedTime: retired ? now : null,
            ...held(request),
          } satisfies Registration),
        ),
      );
      const counted = [...plan.inserts, ...plan.returning.map((row) => row.write)].filter(
        (write) => write.counted,
      );
      await this.countInstalls(manager, { id: passId, workspaceId }, counted, plan.inserts, now);
      return plan.outcomes;
    });
  }

  /** The current version of each holder copy the turn registers, by holder id. */
  private async holderVersions(
    manager: EntityManager,
    registrations: readonly RegistrationRequest[],
  ): Promise<Map<string, number>> {
    const ids = [
      ...new Set(registrations.flatMap((r) => (r.holderId === null ? [] : [r.holderId]))),
    ];
    if (ids.length === 0) return new Map();
    const rows = await manager.query<{ id: string; version: number | string }[]>(
      `SELECT id, version FROM holder WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    return new Map(rows.map((row) => [row.id, Number(row.version)]));
  }

  /** The stored registrations of the turn's (serial number, device) pairs, active or not. */
  private async knownRegistrations(
    manager: EntityManager,
    registrations: readonly RegistrationRequest[],
  ): Promise<KnownRegistration[]> {
    const serials = [...new Set(registrations.map((r) => r.serialNumber))];
    const devices = [...new Set(registrations.map((r) => r.deviceLibraryId))];
    const marks = (values: readonly string[]) => values.map(() => '?').join(', ');
    const rows = await manager.query<Record<string, unknown>[]>(
      'SELECT id, serial_number, device_library_id, removed_time FROM wallet_a_registration ' +
        `WHERE serial_number IN (${marks(serials)}) AND device_library_id IN (${marks(devices)})`,
      [...serials, ...devices],
    );
    return rows.map((row) => ({
      id: String(row.id),
      serialNumber: String(row.serial_number),
      deviceLibraryId: String(row.device_library_id),
      active: row.removed_time === null,
    }));
  }

  /** Active registrations now, per group the turn adds to (a source's, a holder copy's). */
  private async activeByGroup(
    manager: EntityManager,
    passId: string,
    registrations: readonly RegistrationRequest[],
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const sources = [
      ...new Set(registrations.filter((r) => r.holderId === null).map((r) => r.source ?? '')),
    ];
    const holderSerials = [
      ...new Set(registrations.filter((r) => r.holderId !== null).map((r) => r.serialNumber)),
    ];
    if (sources.length > 0) {
      const rows = await manager
        .createQueryBuilder(Registration, 'registration')
        .select('registration.source', 'source')
        .addSelect('COUNT(*)', 'count')
        .where('registration.serial_number = :passId', { passId })
        .andWhere('registration.source IN (:...sources)', { sources })
        .andWhere('registration.removed_time IS NULL')
        .groupBy('registration.source')
        .getRawMany<{ source: string; count: number | string }>();
      for (const row of rows) {
        counts.set(groupKey({ serialNumber: passId, source: row.source }), Number(row.count));
      }
    }
    if (holderSerials.length > 0) {
      const rows = await manager
        .createQueryBuilder(Registration, 'registration')
        .select('registration.serial_number', 'serialNumber')
        .addSelect('COUNT(*)', 'count')
        .where('registration.serial_number IN (:...holderSerials)', { holderSerials })
        .andWhere('registration.removed_time IS NULL')
        .groupBy('registration.serial_number')
        .getRawMany<{ serialNumber: string; count: number | string }>();
      for (const row of rows) {
        counts.set(groupKey({ serialNumber: row.serialNumber }), Number(row.count));
      }
    }
    return counts;
  }

  /** A group's oldest active registrations, replaced by the newer devices of a turn. */
  private async retireOldest(
    manager: EntityManager,
    group: DeviceGroup,
    count: number,
    kept: ReadonlySet<string>,
    now: Date,
  ): Promise<void> {
    const query = manager
      .createQueryBuilder(Registration, 'registration')
      .select('registration.id', 'id')
      .where('registration.serial_number = :serialNumber', { serialNumber: group.serialNumber })
      .andWhere('registration.removed_time IS NULL')
      .orderBy('registration.updated_time', 'ASC')
      .addOrderBy('registration.id', 'ASC')
      .limit(count + kept.size);
    if (group.source !== undefined) {
      query.andWhere('registration.source = :source', { source: group.source });
    }
    const oldest = (await query.getRawMany<{ id: string }>())
      .map((row) => row.id)
      .filter((id) => !kept.has(id))
      .slice(0, count);
    if (oldest.length === 0) return;
    await manager.update(
      Registration,
      { id: In(oldest), removedTime: IsNull() },
      { removedTime: now, updatedTime: now },
    );
  }

  /**
   * The counters and `pass.installed` events of the devices a turn added (not those that
   * replaced another: they hold nothing more), in as few statements as the turn allows.
   */
  private async countInstalls(
    manager: EntityManager,
    pass: Pick<Pass, 'id' | 'workspaceId'>,
    counted: readonly PlannedWrite<DeviceRegistration>[],
    inserted: readonly PlannedWrite<DeviceRegistration>[],
    time: Date,
  ): Promise<void> {
    if (counted.length === 0) return;
    const firstTime = new Set(inserted);
    await addHolderCounters(manager, pass.id, 'apple', {
      issued: counted.filter((write) => firstTime.has(write)).length,
      active: counted.length,
    });
    const perHolder = new Map<string, number>();
    for (const { request } of counted) {
      if (request.holderId !== null) {
        perHolder.set(request.holderId, (perHolder.get(request.holderId) ?? 0) + 1);
      }
    }
    for (const [holderId, added] of perHolder) {
      await manager
        .createQueryBuilder()
        .update(Holder)
        .set({ appleInstalledCount: () => `apple_installed_count + ${added}` })
        .where('id = :holderId', { holderId })
        .execute();
    }
    await this.events.recordAll(
      manager,
      counted.map(({ request }): RecordedEvent => ({
        type: 'pass.installed',
        workspaceId: pass.workspaceId,
        time,
        data: { passId: pass.id, holderId: request.holderId, platform: 'WalletA' },
      })),
    );
  }

  /** The device no longer holds the pass (or the holder's copy) of this serial number. */
  async unregister(serialNumber: string, deviceLibraryId: string): Promise<void> {
    await this.deactivate({ serialNumber, deviceLibraryId });
  }

  /** APNs said the device token is gone (410 Unregistered, BadDeviceToken). */
  async removeUnreachable(registration: Pick<Registration, 'id'>): Promise<void> {
    await this.deactivate({ id: registration.id });
  }

  /**
   * Passes registered on the device that changed after the tag, and the tag to send next
   * time (milliseconds of the latest change); null when nothing changed, undefined when the
   * device has no registration at all.
   */
  async updatedSince(
    deviceLibraryId: string,
    since: number | undefined,
  ): Promise<{ serialNumbers: string[]; lastUpdated: string } | null | undefined> {
    // A holder's copy changes when the pass or the holder does: the later of the two counts.
    const rows = await this.dataSource
      .createQueryBuilder()
      .select('registration.serial_number', 'id')
      .addSelect('pass.updated_time', 'updatedTime')
      .addSelect('holder.updated_time', 'holderUpdatedTime')
      .from(Registration, 'registration')
      .innerJoin(Pass, 'pass', 'pass.id = registration.pass_id')
      .leftJoin(Holder, 'holder', 'holder.id = registration.holder_id')
      .where('registration.device_library_id = :deviceLibraryId', { deviceLibraryId })
      .andWhere('registration.removed_time IS NULL')
      .getRawMany<{
        id: string;
        updatedTime: Date | string;
        holderUpdatedTime: Date | string | null;
      }>();
    if (rows.length === 0) return undefined;
    const dialect = sqlDialect(this.dataSource);
    const changes = rows.map((row) => ({
      id: row.id,
      at: Math.max(
        dialect.readDate(row.updatedTime).getTime(),
        row.holderUpdatedTime === null ? 0 : dialect.readDate(row.holderUpdatedTime).getTime(),
      ),
    }));
    const lastUpdated = Math.max(...changes.map((change) => change.at));
    const serialNumbers = changes
      .filter((change) => since === undefined || change.at > since)
      .map((change) => change.id);
    return serialNumbers.length === 0 ? null : { serialNumbers, lastUpdated: String(lastUpdated) };
  }

  private async deactivate(
    where: { id: string } | { serialNumber: string; deviceLibraryId: string },
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const registration = await manager.findOneBy(Registration, {
        ...where,
        removedTime: IsNull(),
      });
      if (registration === null) return;
      await lockPassVersion(manager, registration.passId);
      const now = new Date();
      const result = await manager.update(
        Registration,
        { id: registration.id, removedTime: IsNull() },
        { removedTime: now, updatedTime: now },
      );
      if (result.affected === 1)
        await this.moveCounters(
          manager,
          { id: registration.passId, workspaceId: registration.workspaceId },
          registration.holderId,
          now,
          { issued: false, active: -1 },
        );
    });
  }

  /**
   * The pass's apple counters, the holder's installed count for a holder's copy, and the
   * `pass.installed`/`pass.uninstalled` event: only ever called when a registration really
   * became active or inactive, so a repeated call announces nothing.
   */
  private async moveCounters(
    manager: EntityManager,
    pass: Pick<Pass, 'id' | 'workspaceId'>,
    holderId: string | null,
    time: Date,
    change: { issued: boolean; active: 1 | -1 },
  ): Promise<void> {
    await moveHolderCounters(manager, pass.id, 'apple', change);
    if (holderId !== null) {
      await manager
        .createQueryBuilder()
        .update(Holder)
        .set({
          appleInstalledCount: () => `apple_installed_count ${change.active > 0 ? '+' : '-'} 1`,
        })
        .where('id = :holderId', { holderId })
        .execute();
    }
    await this.events.record(manager, {
      type: change.active > 0 ? 'pass.installed' : 'pass.uninstalled',
      workspaceId: pass.workspaceId,
      time,
      data: { passId: pass.id, holderId, platform: 'WalletA' },
    });
  }
}
