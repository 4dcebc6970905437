import { isUniqueViolation, newId, sqlDialect } from '@app/core';
import { lockPassRow, moveHolderCounters, Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, Not } from 'typeorm';
import { Registration } from './registration.entity';

/**
 * Device registrations and the WalletA counters they drive, changed together in one
 * transaction: issued = devices that ever registered the pass, active = registered now.
 * Each counter moves only when a conditional write really changed a registration, so
 * concurrent and repeated calls from devices leave the counters right.
 */
@Injectable()
export class RegistrationsService {
  constructor(private readonly dataSource: DataSource) {}

  /** `created` for a new (or returning) device, `existing` when it was registered already. */
  async register(
    pass: Pass,
    deviceLibraryId: string,
    pushToken: string,
  ): Promise<'created' | 'existing'> {
    return this.dataSource.transaction(async (manager) => {
      // Registration changes of one pass take turns (else MySQL deadlocks two devices at once).
      await lockPassRow(manager, pass.id);
      const now = new Date();
      try {
        await manager.insert(Registration, {
          id: newId(),
          workspaceId: pass.workspaceId,
          passId: pass.id,
          deviceLibraryId,
          pushToken,
          createdTime: now,
          updatedTime: now,
          removedTime: null,
        });
        await moveHolderCounters(manager, pass.id, 'apple', { issued: true, active: 1 });
        return 'created';
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const returning = await manager.update(
        Registration,
        { passId: pass.id, deviceLibraryId, removedTime: Not(IsNull()) },
        { removedTime: null, pushToken, updatedTime: now },
      );
      if (returning.affected === 1) {
        await moveHolderCounters(manager, pass.id, 'apple', { issued: false, active: 1 });
        return 'created';
      }
      await manager.update(
        Registration,
        { passId: pass.id, deviceLibraryId },
        { pushToken, updatedTime: now },
      );
      return 'existing';
    });
  }

  /** The device no longer holds the pass. */
  async unregister(pass: Pass, deviceLibraryId: string): Promise<void> {
    await this.deactivate({ passId: pass.id, deviceLibraryId });
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
    const rows = await this.dataSource
      .createQueryBuilder()
      .select('pass.id', 'id')
      .addSelect('pass.updated_time', 'updatedTime')
      .from(Registration, 'registration')
      .innerJoin(Pass, 'pass', 'pass.id = registration.pass_id')
      .where('registration.device_library_id = :deviceLibraryId', { deviceLibraryId })
      .andWhere('registration.removed_time IS NULL')
      .getRawMany<{ id: string; updatedTime: Date | string }>();
    if (rows.length === 0) return null;
    const dialect = sqlDialect(this.dataSource);
    const changes = rows.map((row) => ({
      id: row.id,
      at: dialect.readDate(row.updatedTime).getTime(),
    }));
    const lastUpdated = Math.max(...changes.map((change) => change.at));
    const serialNumbers = changes
      .filter((change) => since === undefined || change.at > since)
      .map((change) => change.id);
    return serialNumbers.length === 0 ? null : { serialNumbers, lastUpdated: String(lastUpdated) };
  }

  private async deactivate(
    where: { id: string } | { passId: string; deviceLibraryId: string },
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
        await moveHolderCounters(manager, registration.passId, 'apple', {
          issued: false,
          active: -1,
        });
    });
  }
}
