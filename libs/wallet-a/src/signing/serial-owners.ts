import { BoundedMap, rawQuery } from '@app/core';
import { Holder, Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';

/** Whose a serial number is, and the hash of the token its devices must send. */
export interface SerialOwner {
  passId: string;
  workspaceId: string;
  tokenHash: string;
  holderId: string | null;
}

/** A token to set on a pass or holder that has none: its SHA-256 (hex) and its sealed copy. */
export interface IssuedToken {
  hash: string;
  sealed: string;
}

/** Serial numbers kept: a launch's worth of holders' copies; the least recently used go. */
const KNOWN_SERIALS = 50_000;

interface CredentialRow {
  pass_id: string;
  workspace_id: string;
  token_hash: string | null;
  holder_id: string | null;
}

/**
 * The owner of each serial number ({@link SerialOwner}), read once per process and kept without
 * asking again or being told of changes, so a device's registration costs no read of its own.
 *
 * That is right because an owner, once kept, cannot change, and this class is what makes it so:
 * - The token hash is written here only, by {@link issue}, which sets it where there is none
 *   (`wallet_a_token_hash IS NULL`) and has no way to replace or clear one.
 * - Only serials that have a token are kept: a serial not found, or found without a token, is
 *   read again next time, so the row's insert and {@link issue} never leave a stale entry
 *   behind on any instance. {@link issue} still drops its serial, so nothing kept outlives a
 *   write made here.
 * - The rest of an owner is set when its row is inserted: a pass's id is its serial; a holder's
 *   serial number, pass and workspace are given at its creation and no edit writes them (a
 *   holder's edits write its values, its status and its counters; the entity marks `passId`
 *   and `serialNumber` `update: false`, so no TypeORM save or update can). Neither table loses rows: a
 *   deleted pass and a voided holder keep theirs, and no retention rule covers them
 *   (test/serial-owners.e2e-spec.ts drives the writes and compares).
 * The token itself is still checked on every call, against the kept hash.
 */
@Injectable()
export class SerialOwners {
  private readonly known = new BoundedMap<string, SerialOwner>(KNOWN_SERIALS);

  constructor(private readonly dataSource: DataSource) {}

  /** Whose the serial number is, or null for none or no token yet (then not kept). */
  async ownerOf(serialNumber: string): Promise<SerialOwner | null> {
    const kept = this.known.get(serialNumber);
    if (kept !== undefined) return kept;
    const rows = await rawQuery<CredentialRow[]>(
      this.dataSource,
      'SELECT id AS pass_id, workspace_id, wallet_a_token_hash AS token_hash, NULL AS holder_id ' +
        'FROM pass WHERE id = ? ' +
        'UNION ALL SELECT pass_id, workspace_id, wallet_a_token_hash, id FROM holder ' +
        'WHERE serial_number = ?',
      [serialNumber, serialNumber],
    );
    // The shared pass's serial is its id; only when no pass has it is it a holder's serial.
    const row = rows.find((each) => each.holder_id === null) ?? rows[0];
    if (row?.token_hash == null) return null;
    const owner: SerialOwner = {
      passId: row.pass_id,
      workspaceId: row.workspace_id,
      tokenHash: row.token_hash,
      holderId: row.holder_id,
    };
    this.known.set(serialNumber, owner);
    return owner;
  }

  /**
   * Sets the token of the pass (its serial is its id) or of the holder, if it has none yet.
   * Returns whether this call set it; when it did not, another call had, and its token stands.
   */
  async issue(
    of: { pass: Pick<Pass, 'id'> } | { holder: Pick<Holder, 'id' | 'serialNumber'> },
    token: IssuedToken,
  ): Promise<boolean> {
    const columns = { walletATokenHash: token.hash, walletAToken: token.sealed };
    const result =
      'pass' in of
        ? await this.dataSource
            .getRepository(Pass)
            .update({ id: of.pass.id, walletATokenHash: IsNull() }, columns)
        : await this.dataSource
            .getRepository(Holder)
            .update({ id: of.holder.id, walletATokenHash: IsNull() }, columns);
    this.known.delete('pass' in of ? of.pass.id : of.holder.serialNumber);
    return result.affected === 1;
  }
}
