import { WorkspaceOwnedEntity } from '@app/core';
import { Column, Entity } from 'typeorm';
import type { PassMessage } from './pass.entity';
import type { PassengerName } from '@app/kinds';

export const HOLDER_STATUSES = ['Active', 'Voided'] as const;
export type HolderStatus = (typeof HOLDER_STATUSES)[number];

/** A holder's own values of the pass's face fields (any slot), by field key. */
export type HolderFieldValues = Record<string, string>;

/** A holder's attribute value: text, a finite number or a boolean. */
export type AttributeValue = string | number | boolean;

/** What a brand knows of a holder, for audiences; never shown on the pass. */
export type HolderAttributes = Record<string, AttributeValue>;

/**
 * A personal copy of a pass: the pass's design with this holder's serial
 * number, barcode and field values.
 */
@Entity({ name: 'holder' })
export class Holder extends WorkspaceOwnedEntity {
  /**
   * Written once, at insert (`update: false`: TypeORM's saves and updates leave it out), like
   * the serial number: the WalletA web service keeps a serial's owner on that (`SerialOwners`).
   */
  @Column({ name: 'pass_id', type: 'varchar', length: 36, update: false })
  passId!: string;

  /** The brand's member id; unique per pass, case-exact (binary collation on MySQL). */
  @Column({ name: 'external_id', type: 'varchar', length: 255 })
  externalId!: string;

  /** WalletA serial number and WalletB object id suffix: random, never the pass id; never changed. */
  @Column({ name: 'serial_number', type: 'varchar', length: 64, update: false })
  serialNumber!: string;

  /** The unguessable part of the holder page's URL (`/p/{slug}/h/{holderToken}`). */
  @Column({ name: 'holder_token', type: 'varchar', length: 64 })
  holderToken!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: HolderStatus;

  @Column({ name: 'field_values', type: 'simple-json' })
  fieldValues!: HolderFieldValues;

  /** Sorted, without repeats; for audiences only, never on the pass. */
  @Column({ type: 'simple-json' })
  tags!: string[];

  /** For audiences only, never on the pass. */
  @Column({ type: 'simple-json' })
  attributes!: HolderAttributes;

  /** Null: the pass's `qrUrl`. */
  @Column({ name: 'barcode_value', type: 'varchar', length: 2048, nullable: true })
  barcodeValue!: string | null;

  /** Null: the pass's `qrText`. */
  @Column({ name: 'barcode_text', type: 'varchar', length: 255, nullable: true })
  barcodeText!: string | null;

  /** ISO 8601 with its offset, as sent; null: the pass's `relevantDate`. */
  @Column({ name: 'relevant_date', type: 'varchar', length: 40, nullable: true })
  relevantDate!: string | null;

  /** ISO 8601 with its offset, as sent; null: the pass's `expirationDate`. */
  @Column({ name: 'expiration_date', type: 'varchar', length: 40, nullable: true })
  expirationDate!: string | null;

  /** A boarding pass's passenger; null: none. */
  @Column({ name: 'passenger_name', type: 'simple-json', nullable: true })
  passengerName!: PassengerName | null;

  /** What terminals read over NFC from this holder's copy; null: the pass's `nfc.message`. */
  @Column({ name: 'nfc_message', type: 'varchar', length: 64, nullable: true })
  nfcMessage!: string | null;

  @Column({ name: 'apple_installed_count', type: 'int', default: 0 })
  appleInstalledCount!: number;

  @Column({ name: 'google_installed_count', type: 'int', default: 0 })
  googleInstalledCount!: number;

  /** Moves on with every change the holder sees; the wallets fetch or patch on it. */
  @Column({ type: 'int', default: 1 })
  version!: number;

  /** SHA-256 (hex) of the holder's WalletA `authenticationToken`; null until first packaged. */
  @Column({ name: 'wallet_a_token_hash', type: 'varchar', length: 64, nullable: true })
  walletATokenHash!: string | null;

  /** The same token, encrypted, to put into every later package of this holder. */
  @Column({ name: 'wallet_a_token', type: 'varchar', length: 255, nullable: true })
  walletAToken!: string | null;

  /**
   * The latest notification sent to this holder alone (`holderIds`); the package shows it
   * instead of the pass's own when it is the newer of the two (`shownMessage`).
   */
  @Column({ name: 'wallet_a_message', type: 'simple-json', nullable: true })
  walletAMessage!: PassMessage | null;

  @Column({ name: 'voided_time', type: 'datetime', precision: 3, nullable: true })
  voidedTime!: Date | null;
}
