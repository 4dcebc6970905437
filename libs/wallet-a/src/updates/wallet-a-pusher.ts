/** What became of one device's push. */
export type PushOutcome =
  | { readonly status: 'sent' }
  | { status: 'unregistered'; reason: string }
  | { status: 'failed'; reason: string };

/**
 * Sends "your pass changed" pushes (the empty payload Apple asks for) to device push tokens,
 * reporting each outcome as it arrives. Implemented over APNs; tests may swap it.
 */
export interface WalletAPusher {
  /** Why pushes cannot be sent at all (no credentials), or null when they can. */
  unavailableReason(): string | null;
  /**
   * `onOutcome` gets each outcome as it arrives, with the token's index in `tokens`; a promise
   * it returns is awaited.
   */
  pushUpdates(
    tokens: readonly string[],
    onOutcome: (token: string, outcome: PushOutcome, index: number) => void | Promise<void>,
  ): Promise<void>;
  close(): Promise<void>;
}

/** One object for every push that went out: a fan-out makes a million of them. */
export const PUSH_SENT: PushOutcome = Object.freeze({ status: 'sent' });

export const WALLET_A_PUSHER = Symbol('WALLET_A_PUSHER');
