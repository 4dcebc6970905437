import {
  APP_CONFIG,
  EntityRows,
  newId,
  paginateSql,
  RATE_LIMIT_STORE,
  sqlDialect,
  type AppConfig,
  type Page,
  type RateLimitStore,
} from '@app/core';
import { PassesService } from '@app/passes';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AuthenticatedDevices } from './authenticated-devices';
import { DeviceLog } from './device-log.entity';
import {
  deviceLogMessage,
  MAX_MESSAGE_LENGTH,
  messageHash,
  serialCandidates,
} from './device-log-text';
import type { ListDeviceLogsQuery } from './dto/device-log.dto';

const TABLE = 'wallet_a_device_log';
const HOUR_MS = 3_600_000;
/** Entries over the per-pass bound deleted at a time (a lowered bound is reached over posts). */
const TRIM_BATCH = 100;

/** The pass, and holder, a serial number belongs to. */
interface SerialOwner {
  serialNumber: string;
  passId: string;
  workspaceId: string;
  holderId: string | null;
}

/** One message for one serial number, posted `count` times in one request. */
interface Posted {
  owner: SerialOwner;
  message: string;
  hash: string;
  count: number;
  /** Posted from an address that just authenticated for the serial number. */
  verified: boolean;
}

/**
 * What Wallet on devices posts to the PassKit web service's `/log`, kept per
 * pass by the serial number each message names, and read back by the pass's workspace. The
 * route is anonymous: a message is `verified` only when its address had just authenticated for
 * that serial number (`AuthenticatedDevices`).
 */
@Injectable()
export class DeviceLogsService {
  private readonly logger = new Logger('PassKit');
  private readonly rows: EntityRows<DeviceLog>;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(DeviceLog) private readonly logs: Repository<DeviceLog>,
    private readonly passes: PassesService,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly devices: AuthenticatedDevices,
  ) {
    this.rows = new EntityRows(dataSource, DeviceLog, 'd');
  }

  /**
   * Writes each entry to the process log (JSON, so control characters arrive escaped) and keeps
   * those that name a known serial number. Never fails: Wallet does not post a log again, so a
   * database or store failure is logged here and the device still gets its 200.
   */
  async receive(entries: string[], clientIp: string): Promise<void> {
    for (const entry of entries) {
      this.logger.warn({ deviceLog: entry.slice(0, MAX_MESSAGE_LENGTH) }, 'Wallet device log');
    }
    try {
      await this.keep(entries, clientIp);
    } catch (error) {
      this.logger.error({ err: error }, 'Device logs not stored');
    }
  }

  /** A pass's entries, most recently seen first; `holderId` narrows them to one holder's. */
  async list(
    workspaceId: string,
    passId: string,
    query: ListDeviceLogsQuery,
  ): Promise<Page<DeviceLog>> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const where = ['d.pass_id = ?'];
    const params: unknown[] = [pass.id];
    if (query.holderId !== undefined) {
      where.push('d.holder_id = ?');
      params.push(query.holderId);
    }
    const page = await paginateSql<Record<string, unknown>>(
      this.dataSource,
      workspaceId,
      {
        select: this.rows.select,
        table: TABLE,
        alias: 'd',
        where,
        params,
        idColumn: 'd.id',
        idKey: this.rows.idKey,
        time: { column: 'd.last_time', key: 'd_last_time' },
      },
      query,
    );
    return { ...page, items: page.items.map((row) => this.rows.read(row)) };
  }

  private async keep(entries: string[], clientIp: string): Promise<void> {
    const messages = entries.map(deviceLogMessage).filter((message) => message !== '');
    const candidates = messages.map(serialCandidates);
    const owners = await this.owners([...new Set(candidates.flat())]);
    if (owners.size === 0) return;
    // The first serial number found takes the message.
    const named = candidates.map((serials) =>
      serials.map((serial) => owners.get(serial)).find((found) => found !== undefined),
    );
    const verified = new Map<string, boolean>();
    for (const owner of named) {
      if (owner === undefined || verified.has(owner.serialNumber)) continue;
      verified.set(owner.serialNumber, await this.devices.wasSeen(clientIp, owner.serialNumber));
    }

    // The same message twice in one post is one entry counted twice.
    const posted = new Map<string, Posted>();
    messages.forEach((message, index) => {
      const owner = named[index];
      if (owner === undefined) return;
      const hash = messageHash(message);
      const key = `${owner.passId} ${owner.serialNumber} ${hash}`;
      const seen = posted.get(key);
      if (seen !== undefined) {
        seen.count += 1;
        return;
      }
      const fromDevice = verified.get(owner.serialNumber) === true;
      posted.set(key, { owner, message, hash, count: 1, verified: fromDevice });
    });

    const now = new Date();
    const grown = new Set<string>();
    for (const entry of posted.values()) {
      if (await this.countAgain(entry, now)) continue;
      if (!(await this.sourceMayAdd(clientIp, entry.owner.passId))) continue;
      await this.add(entry, now);
      grown.add(entry.owner.passId);
    }
    for (const passId of grown) await this.trim(passId);
  }

  /**
   * The passes and holders of the serial numbers, in one query: a pass by its id, a holder by
   * its serial number. Deleted passes are left out: nobody can read their entries.
   */
  private async owners(serials: string[]): Promise<Map<string, SerialOwner>> {
    const owners = new Map<string, SerialOwner>();
    if (serials.length === 0) return owners;
    const marks = serials.map(() => '?').join(', ');
    const rows = await this.dataSource.query<
      { serial_number: string; pass_id: string; workspace_id: string; holder_id: string | null }[]
    >(
      `SELECT p.id AS serial_number, p.id AS pass_id, p.workspace_id, NULL AS holder_id ` +
        `FROM pass p WHERE p.id IN (${marks}) AND p.deleted_time IS NULL ` +
        `UNION ALL ` +
        `SELECT h.serial_number, h.pass_id, h.workspace_id, h.id AS holder_id ` +
        `FROM holder h JOIN pass p ON p.id = h.pass_id ` +
        `WHERE h.serial_number IN (${marks}) AND p.deleted_time IS NULL`,
      [...serials, ...serials],
    );
    for (const row of rows) {
      owners.set(row.serial_number, {
        serialNumber: row.serial_number,
        passId: row.pass_id,
        workspaceId: row.workspace_id,
        holderId: row.holder_id,
      });
    }
    return owners;
  }

  /** Counts a message already kept; false when it is new. */
  private async countAgain(entry: Posted, now: Date): Promise<boolean> {
    const result = await this.logs
      .createQueryBuilder()
      .update()
      .set({ count: () => `count + ${entry.count}`, lastTime: now })
      .where(
        'pass_id = :passId AND serial_number = :serialNumber AND message_hash = :hash ' +
          'AND verified = :verified',
        {
          passId: entry.owner.passId,
          serialNumber: entry.owner.serialNumber,
          hash: entry.hash,
          // As stored: SQLite binds no booleans.
          verified: entry.verified ? 1 : 0,
        },
      )
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Whether this client IP may add another message to this pass this hour, counted in the
   * rate-limit store; let through when the store fails, like every limit.
   */
  private async sourceMayAdd(clientIp: string, passId: string): Promise<boolean> {
    try {
      const hit = await this.store.hit(`passkit-log:${clientIp}:${passId}`, HOUR_MS);
      return hit.count <= this.config.walletA.deviceLogs.perSourcePerHour;
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; device log kept');
      return true;
    }
  }

  /**
   * Inserts a new entry. Another post may have added the same message since it was looked for:
   * then that row counts this one too (one statement, see `insertAdding`).
   */
  private async add(entry: Posted, now: Date): Promise<void> {
    const dialect = sqlDialect(this.dataSource);
    const { owner } = entry;
    const { sql, parameters } = dialect.insertAdding(
      TABLE,
      ['pass_id', 'serial_number', 'message_hash', 'verified'],
      {
        id: newId(),
        workspace_id: owner.workspaceId,
        pass_id: owner.passId,
        holder_id: owner.holderId,
        serial_number: owner.serialNumber,
        message: entry.message,
        message_hash: entry.hash,
        verified: entry.verified ? 1 : 0,
        count: entry.count,
        first_time: dialect.writeDate(now),
        last_time: dialect.writeDate(now),
      },
      ['count'],
    );
    await this.dataSource.query(sql, parameters);
  }

  /** Deletes the least recently seen entries of a pass beyond its bound. */
  private async trim(passId: string): Promise<void> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM ${TABLE} WHERE pass_id = ? ORDER BY last_time DESC, id DESC ` +
        `LIMIT ${TRIM_BATCH} OFFSET ${this.config.walletA.deviceLogs.perPass}`,
      [passId],
    );
    if (rows.length === 0) return;
    await this.dataSource.query(
      `DELETE FROM ${TABLE} WHERE id IN (${rows.map(() => '?').join(', ')})`,
      rows.map((row) => row.id),
    );
  }
}
