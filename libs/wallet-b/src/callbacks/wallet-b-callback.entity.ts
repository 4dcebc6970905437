import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A save/delete callback already applied, by Google's nonce: a repeat is applied once. */
@Entity({ name: 'wallet_b_callback' })
export class WalletBCallback {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  nonce!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 8 })
  eventType!: 'save' | 'del';

  @Column({ name: 'object_id', type: 'varchar', length: 255 })
  objectId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'received_time', type: 'datetime', precision: 3 })
  receivedTime!: Date;

  /**
   * The callback's `expTimeMillis`: until then Google may send it again, so the nonce is kept
   * until then (retention deletes it after). Null for nonces recorded before it was stored.
   */
  @Column({ name: 'expires_time', type: 'datetime', precision: 3, nullable: true })
  expiresTime!: Date | null;
}
