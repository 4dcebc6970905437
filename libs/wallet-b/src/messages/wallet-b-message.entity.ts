import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MessageType } from '../google/wallet-objects.types';

/** The recipient of a message added to the pass's class. */
export const WALLET_B_CLASS_RECIPIENT = 'class';

export type WalletBMessageState = 'pending' | 'sent' | 'failed';

/**
 * A message added to a pass's class or to one holder's object, once per (pass, message id,
 * recipient). Notifying ones
 * (TEXT_AND_NOTIFY) that are pending or sent count against Google's limit per pass and rolling
 * 24 hours.
 */
@Entity({ name: 'wallet_b_message' })
export class WalletBMessage {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'message_id', type: 'varchar', length: 255 })
  messageId!: string;

  /** Whose resource the message went on: `'class'` (every holder) or a holder id (its object). */
  @Column({ type: 'varchar', length: 36, default: WALLET_B_CLASS_RECIPIENT })
  recipient!: string;

  @Column({ name: 'message_type', type: 'varchar', length: 16 })
  messageType!: MessageType;

  @Column({ type: 'varchar', length: 16 })
  state!: WalletBMessageState;

  /** The pass's googleActiveCount when the message was reserved for sending. */
  @Column({ type: 'int', default: 0 })
  recipients!: number;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;

  @Column({ name: 'updated_time', type: 'datetime', precision: 3 })
  updatedTime!: Date;
}
