import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { PassMetadataDto, UploadInfoDto } from '../metadata/pass-metadata.dto';

/** The notification a pass currently shows (see `walletAMessage`). */
export interface PassMessage {
  notificationId: string;
  label: string | null;
  message: string;
}

export const PASS_STATUSES = ['Draft', 'Published'] as const;
export type PassStatus = (typeof PASS_STATUSES)[number];

/** Counters named as the spec names them (the literal words apple/google). */
export const PASS_COUNTERS = [
  'appleIssuedCount',
  'googleIssuedCount',
  'totalIssuedCount',
  'appleActiveCount',
  'googleActiveCount',
  'totalActiveCount',
] as const;
export type PassCounter = (typeof PASS_COUNTERS)[number];

@Entity({ name: 'pass' })
export class Pass extends WorkspaceOwnedEntity {
  @Column({ name: 'account_id', type: 'varchar', length: 36 })
  accountId!: string;

  @Column({ name: 'pass_name', type: 'varchar', length: 255 })
  passName!: string;

  /** `passName` lower-cased while the pass exists, null once deleted; unique per workspace. */
  @Column({ name: 'name_key', type: 'varchar', length: 255, nullable: true })
  nameKey!: string | null;

  @Column({ name: 'pass_metadata', type: 'simple-json' })
  passMetadata!: PassMetadataDto;

  @Column({ name: 'notification_header', type: 'varchar', length: 255, nullable: true })
  notificationHeader!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: PassStatus;

  @Column({ type: 'varchar', length: 64 })
  slug!: string;

  @Column({ name: 'upload_info_list', type: 'simple-json' })
  uploadInfoList!: UploadInfoDto[];

  @Column({ name: 'apple_issued_count', type: 'int', default: 0 })
  appleIssuedCount!: number;

  @Column({ name: 'google_issued_count', type: 'int', default: 0 })
  googleIssuedCount!: number;

  @Column({ name: 'total_issued_count', type: 'int', default: 0 })
  totalIssuedCount!: number;

  @Column({ name: 'apple_active_count', type: 'int', default: 0 })
  appleActiveCount!: number;

  @Column({ name: 'google_active_count', type: 'int', default: 0 })
  googleActiveCount!: number;

  @Column({ name: 'total_active_count', type: 'int', default: 0 })
  totalActiveCount!: number;

  /** Moves on with every change holders should see (content, images, locations). */
  @Column({ type: 'int', default: 1 })
  version!: number;

  /** SHA-256 (hex) of the WalletA `authenticationToken`; null until first packaged. */
  @Column({ name: 'wallet_a_token_hash', type: 'varchar', length: 64, nullable: true })
  walletATokenHash!: string | null;

  /** The same token, AES-256-GCM encrypted, to put it into later versions of the package. */
  @Column({ name: 'wallet_a_token', type: 'varchar', length: 255, nullable: true })
  walletAToken!: string | null;

  /**
   * The latest notification shown on WalletA passes: a field whose value is the message, so
   * its changeMessage puts it on the lock screen. Null until the first notification.
   */
  @Column({ name: 'wallet_a_message', type: 'simple-json', nullable: true })
  walletAMessage!: PassMessage | null;

  /** Set when the pass was deleted: gone from the API, voided for holders. */
  @Column({ name: 'deleted_time', type: 'datetime', precision: 3, nullable: true })
  deletedTime!: Date | null;
}
