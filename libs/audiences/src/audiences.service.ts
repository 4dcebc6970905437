import {
  binaryBytes,
  bufferPoolFit,
  InvalidInputError,
  NotFoundError,
  CostlyReads,
  ReadDeadlineError,
  sqlDialect,
  UnavailableError,
  type SqlDialect,
} from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type EntityManager, Repository } from 'typeorm';
import { type Pass, PassesService } from '@app/passes';
import { holderFieldKeys, type HolderCondition, type HolderSegmentFilter } from '@app/holders';
import { faceFieldsOf } from '@app/kinds';
import { readAudience, type AudienceJson, type Condition } from './audience';
import {
  audienceSizeQuery,
  audienceSql,
  audienceSqlNamed,
  probingSubqueries,
  type AudiencePass,
  type SqlCondition,
} from './audience-sql';
import type { AudienceSizeResponse } from './dto/audience.dto';
import { Segment } from './segment.entity';

/** Whom something reaches: an audience given inline, or a segment's. */
export interface AudienceTarget {
  audience?: AudienceJson | null;
  segmentId?: string | null;
}

/** A target as read: its condition and the audience it came from. */
export interface ResolvedAudience {
  condition: Condition;
  audience: AudienceJson;
  segmentId: string | null;
}

/** The tables an audience is read from. */
const TARGETING_TABLES = ['holder', 'holder_tag', 'holder_value'] as const;

/** Holders written into `audience_member` per statement when a snapshot is taken. */
const SNAPSHOT_SELECT = 'SELECT ?, h.id FROM holder h WHERE h.workspace_id = ? AND h.pass_id = ?';

/** Rows per INSERT of a snapshot batch: two parameters each, well under SQLite's 32,766. */
const MEMBERS_PER_INSERT = 1000;

/**
 * Audiences of a pass: reading and checking them, the SQL that finds their holders, their
 * sizes, and the snapshot of their holders that a notification or a bulk change works through.
 */
@Injectable()
export class AudiencesService implements HolderSegmentFilter {
  private readonly dialect: SqlDialect;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Segment) private readonly segments: Repository<Segment>,
    private readonly passes: PassesService,
    private readonly reads: CostlyReads,
  ) {
    this.dialect = sqlDialect(dataSource);
  }

  /** The audience checked against the pass's face fields (400 keyed by path otherwise). */
  read(pass: Pick<Pass, 'passMetadata'>, audience: unknown, at = 'audience'): Condition {
    return readAudience(audience, holderFieldKeys(pass), at);
  }

  /**
   * `audience` or `segmentId` (a segment of this pass, else 404), exactly one (400 otherwise).
   * A segment's audience is read as it is now: a Scheduled notification reaches whoever its
   * segment matches when it is sent.
   */
  async resolve(
    workspaceId: string,
    pass: Pass,
    target: AudienceTarget,
    at = 'audience',
  ): Promise<ResolvedAudience> {
    const hasAudience = target.audience !== undefined && target.audience !== null;
    const hasSegment = target.segmentId !== undefined && target.segmentId !== null;
    if (hasAudience === hasSegment) {
      throw new InvalidInputError({
        [at]: hasAudience ? 'give audience or segmentId, not both' : 'give audience or segmentId',
      });
    }
    if (hasAudience) {
      return {
        condition: this.read(pass, target.audience, at),
        audience: target.audience!,
        segmentId: null,
      };
    }
    const segment = await this.segment(workspaceId, pass.id, target.segmentId!);
    // A segment saved before the pass lost a face field it names matches as if nobody had it.
    return {
      condition: readAudience(segment.audience, null, at),
      audience: segment.audience,
      segmentId: segment.id,
    };
  }

  /** A segment of the pass, or 404. */
  async segment(workspaceId: string, passId: string, segmentId: string): Promise<Segment> {
    const segment = await this.segments.findOneBy({ id: segmentId, workspaceId, passId });
    if (segment === null) throw new NotFoundError('Segment', segmentId);
    return segment;
  }

  /** The condition on `holder h` (the caller adds the workspace and the pass). */
  where(pass: Pass, condition: Condition): SqlCondition {
    return audienceSql(condition, audiencePass(pass), this.dialect);
  }

  /** {@link where} with named parameters, for TypeORM's query builder. */
  whereNamed(
    pass: Pass,
    condition: Condition,
  ): { sql: string; parameters: Record<string, unknown> } {
    return audienceSqlNamed(condition, audiencePass(pass), this.dialect);
  }

  /** The holder list's segment filter: {@link whereNamed} of the segment as it reads now. */
  async segmentCondition(
    workspaceId: string,
    pass: Pass,
    segmentId: string,
  ): Promise<HolderCondition> {
    const { condition } = await this.resolve(workspaceId, pass, { segmentId });
    return this.whereNamed(pass, condition);
  }

  /** {@link size} of `audience` or `segmentId` on a pass of the workspace. */
  async measure(
    workspaceId: string,
    passId: string,
    target: AudienceTarget,
  ): Promise<AudienceSizeResponse> {
    const pass = await this.passes.getEntity(workspaceId, passId);
    const { condition } = await this.resolve(workspaceId, pass, target);
    return this.size(workspaceId, pass, condition);
  }

  /**
   * What a notification to the audience would reach now: the holders it matches, and the WalletA
   * devices and WalletB objects of those that are Active (a Voided holder is reached by nothing).
   * Counted through CostlyReads: off the event loop on SQLite, so that a costly count holds up no
   * other request; on a read replica when DB_READ_URLS lists any, so it may lag the latest
   * writes by the replica's delay. Snapshots, which decide whom work reaches, read the primary.
   */
  async size(workspaceId: string, pass: Pass, condition: Condition): Promise<AudienceSizeResponse> {
    const { sql, params } = audienceSizeQuery(
      workspaceId,
      condition,
      audiencePass(pass),
      this.dialect,
    );
    const [row] = await this.reads
      .query<{
        holders: number | string;
        devices: number | string | null;
        objects: number | string | null;
      }>(sql, params)
      .catch(async (error: unknown) => {
        throw error instanceof ReadDeadlineError ? await this.slowCount(error) : error;
      });
    return {
      holders: Number(row.holders),
      walletADevices: Number(row.devices ?? 0),
      walletBObjects: Number(row.objects ?? 0),
    };
  }

  /**
   * The 503 for a count past its deadline, which says so when the MySQL/MariaDB server is too
   * small for the pass: with a buffer pool smaller than the holder tables, a count over a large
   * pass reads most of them from disk every time (docs/operations.md, "Database and migrations").
   */
  private async slowCount(error: ReadDeadlineError): Promise<UnavailableError> {
    if (!this.dialect.isMysql) return error;
    const fit = await bufferPoolFit(this.dataSource, TARGETING_TABLES).catch(() => null);
    if (fit === null || fit.poolBytes >= fit.tableBytes) return error;
    return new UnavailableError(
      `Counting this audience took longer than ${error.deadlineMs / 1000} s: the database ` +
        `server's buffer pool (innodb_buffer_pool_size, ${binaryBytes(fit.poolBytes)}) is ` +
        `smaller than the holder tables it reads (${binaryBytes(fit.tableBytes)}), so each ` +
        'count reads them from disk. Give the server a pool that holds them.',
    );
  }

  /**
   * Writes the next `limit` holders the audience matches now, in id order after `after` (null:
   * from the first), into `audience_member` under `snapshotId` (a notification's or a bulk
   * change's id), in the caller's transaction. Returns the last holder id written, null when none
   * was left, and whether this was the last batch (fewer than `limit`). A snapshot of any size is
   * then many short transactions, each committed with its worker's checkpoint, instead of one
   * statement that writes 725,670 rows and outlasts every deadline.
   */
  async snapshotBatch(
    manager: EntityManager,
    snapshotId: string,
    pass: Pass,
    condition: Condition,
    after: string | null,
    limit: number,
  ): Promise<{ last: string | null; done: boolean }> {
    const { sql, params } = this.where(pass, condition);
    const rows = await manager.query<{ id: string }[]>(
      probingSubqueries(
        this.dialect,
        'SELECT h.id FROM holder h WHERE h.workspace_id = ? AND h.pass_id = ? AND h.id > ? ' +
          `AND ${sql} ORDER BY h.id LIMIT ${Math.trunc(limit)}`,
      ),
      [pass.workspaceId, pass.id, after ?? '', ...params],
    );
    const ids = rows.map((row) => row.id);
    for (let at = 0; at < ids.length; at += MEMBERS_PER_INSERT) {
      const chunk = ids.slice(at, at + MEMBERS_PER_INSERT);
      await manager.query(
        `INSERT INTO audience_member (snapshot_id, holder_id) VALUES ${chunk.map(() => '(?, ?)').join(', ')}`,
        chunk.flatMap((id) => [snapshotId, id]),
      );
    }
    return { last: ids.at(-1) ?? null, done: ids.length < limit };
  }

  /**
   * Writes the next `limit` chosen holders after `after` (null: from the first), in
   * {@link chosenInOrder}, into `audience_member` under `snapshotId` (a notification's or a bulk
   * change's id), those of the pass among them, in the caller's transaction, as
   * {@link snapshotBatch} does for an audience: returns the last chosen id of the batch, null when
   * none was left, and whether this was the last batch. A worker checkpoints `last` with the batch
   * and passes it back as `after`, so a resumed snapshot goes on after the last batch committed.
   */
  async snapshotChosenBatch(
    manager: EntityManager,
    snapshotId: string,
    pass: Pass,
    holderIds: readonly string[],
    after: string | null,
    limit: number,
  ): Promise<{ last: string | null; done: boolean }> {
    const chosen = chosenInOrder(holderIds);
    const left = after === null ? chosen : chosen.filter((id) => id > after);
    const batch = left.slice(0, limit);
    await this.snapshotIds(manager, snapshotId, pass, batch);
    return { last: batch.at(-1) ?? null, done: left.length <= limit };
  }

  /**
   * Writes holders chosen by id (those of the pass among them) into `audience_member` under
   * `snapshotId`, in the caller's transaction. It does not count the snapshot: a batched writer
   * counts it once, with its last batch ({@link snapshotSize}).
   */
  async snapshotIds(
    manager: EntityManager,
    snapshotId: string,
    pass: Pass,
    holderIds: readonly string[],
  ): Promise<void> {
    for (let at = 0; at < holderIds.length; at += 500) {
      const chunk = holderIds.slice(at, at + 500);
      await manager.query(
        `INSERT INTO audience_member (snapshot_id, holder_id) ${SNAPSHOT_SELECT} AND h.id IN (${chunk.map(() => '?').join(', ')})`,
        [snapshotId, pass.workspaceId, pass.id, ...chunk],
      );
    }
  }

  /** The snapshot's holder ids after `after` (null: from the first), in id order. */
  async snapshotPage(
    manager: EntityManager,
    snapshotId: string,
    after: string | null,
    limit: number,
  ): Promise<string[]> {
    const rows = await manager.query<{ holder_id: string }[]>(
      'SELECT holder_id FROM audience_member WHERE snapshot_id = ? AND holder_id > ? ' +
        `ORDER BY holder_id LIMIT ${Math.trunc(limit)}`,
      [snapshotId, after ?? ''],
    );
    return rows.map((row) => row.holder_id);
  }

  /** How many holders the snapshot holds. */
  async snapshotSize(manager: EntityManager, snapshotId: string): Promise<number> {
    const [row] = await manager.query<{ total: number | string }[]>(
      'SELECT COUNT(*) AS total FROM audience_member WHERE snapshot_id = ?',
      [snapshotId],
    );
    return Number(row.total);
  }
}

/**
 * Chosen holder ids without repeats, in the order their snapshot is written in batches
 * ({@link AudiencesService.snapshotChosenBatch}); the last of them is the checkpoint of a complete
 * snapshot.
 */
export function chosenInOrder(holderIds: readonly string[]): string[] {
  return [...new Set(holderIds)].sort();
}

function audiencePass(pass: Pass): AudiencePass {
  return {
    id: pass.id,
    fieldDefaults: new Map(faceFieldsOf(pass.passMetadata).map(({ key, value }) => [key, value])),
  };
}
