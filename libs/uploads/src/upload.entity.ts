import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';

/**
 * A stored file. Its id is the `uploadKey` clients get back and later name in a pass's
 * `uploadInfoList`; the bytes live in the storage driver under `storageKey`.
 */
@Entity({ name: 'upload' })
export class Upload extends WorkspaceOwnedEntity {
  @Column({ type: 'varchar', length: 63 })
  bucket!: string;

  /** `<bucket>/<workspaceId>/<uploadId>/<fileName>` (see uploadStorageKey). */
  @Column({ name: 'storage_key', type: 'varchar', length: 512 })
  storageKey!: string;

  /** The sanitised name. */
  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName!: string;

  /** Sniffed from the bytes, never taken from the client. */
  @Column({ name: 'content_type', type: 'varchar', length: 100 })
  contentType!: string;

  @Column({ type: 'int' })
  size!: number;

  /**
   * Hex SHA-256 of the bytes. `char(64)` in the schema; TypeORM's SQLite driver has no `char`
   * entity type, so the entity says varchar (the value is always 64 characters).
   */
  @Column({ type: 'varchar', length: 64 })
  sha256!: string;
}
