import { isUniqueViolation, newId, ServiceEvents, sqlDialect } from '@app/core';
import { Holder, lockPassRow, moveHolderCounters, Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull, Not } from 'typeorm';
import { Registration } from './registration.entity';

/**
 * Device registrations and the WalletA counters they drive, changed together in one
 * transaction: issued = devices that ever registered the pass, active = registered now.
 * Each counter moves only when a conditional write really changed a registration, so
 * concurrent and repeated calls from devices leave the counters right. A registration of a
 * holder's copy moves the pass's counters the same way, and the holder's `appleInstalledCount`
 * with them. Registrations are keyed by (device, serial number): a device may hold the shared
 * pass and holders' copies side by side.
 */
@Injectable()
export class RegistrationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: ServiceEvents,
  ) {}

  /** `created` for a new (or returning) device, `existing` when it was registered already. */
  async register(
    pass: Pass,
    holder: Holder | null,
    deviceLibraryId: string,
    pushToken: string,
  ): Promise<'created' | 'existing'> {
    const serialNumber = holder?.serialNumber ?? pass.id;
    return this.dataSource.transaction(async (manager) => {
      // Registration changes of one pass take turns (else MySQL deadlocks two devices at once).
      await lockPassRow(manager, pass.id);
      const now = new Date();
      try {
        await manager.insert(Registration, {
          id: newId(),
          workspaceId: pass.workspaceId,
          passId: pass.id,
          holderId: holder?.id ?? null,
          serialNumber,
          deviceLibraryId,
          pushToken,
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        });
        await this.moveCounters(manager, pass, holder?.id ?? null, now, {
          issued: true,
          active: 1,
        });
        return 'created';
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const returning = await manager.update(
        Registration,
        { serialNumber, deviceLibraryId, removedTime: Not(IsNull()) },
        { removedTime: null, pushToken, updatedTime: now },
      );
      if (returning.affected === 1) {
        await this.moveCounters(manager, pass, holder?.id ?? null, now, {
          issued: false,
          active: 1,
        });
        return 'created';
      }
      await manager.update(
        Registration,
        { serialNumber, deviceLibraryId },
        { pushToken, updatedTime: now },
      );
      return 'existing';
    });
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
   * time (milliseconds of the latest change), or null when nothing is registered or changed.
   */
  async updatedSince(
    deviceLibraryId: string,
    since: number | undefined,
  ): Promise<{ serialNumbers: string[]; lastUpdated: string } | null> {
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
    if (rows.length === 0) return null;
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
      await lockPassRow(manager, registration.passId);
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
