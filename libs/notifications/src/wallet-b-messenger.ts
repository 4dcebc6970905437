import type { Pass } from '@app/passes';

export type WalletBSendResult =
  { status: 'sent'; recipients: number } | { status: 'failed'; reason: string };

/**
 * Adds a notification's message on WalletB's side (it shows on the back of the pass and
 * notifies holders). Provided by the WalletB integration; `id` makes a repeated call for the
 * same notification (after a crash) land once.
 */
export interface WalletBMessenger {
  sendMessage(
    pass: Pass,
    message: { id: string; header: string; body: string },
  ): Promise<WalletBSendResult>;
}

export const WALLET_B_MESSENGER = Symbol('WALLET_B_MESSENGER');
