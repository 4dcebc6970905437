/**
 * Google Wallet sends at most this many notifying messages (TEXT_AND_NOTIFY) per pass in any
 * 24 hours; beyond that an addMessage with TEXT_AND_NOTIFY fails (QuotaExceededException).
 */
export const NOTIFYING_MESSAGES_PER_DAY = 3;
export const NOTIFYING_WINDOW_MS = 24 * 60 * 60 * 1000;

/** For the notifications API's Swagger description: what WalletB holders get, and when not. */
export const WALLET_B_NOTIFICATION_LIMIT_DESCRIPTION =
  `On WalletB the message is added to the back of the pass. Google Wallet notifies holders ` +
  `of at most ${NOTIFYING_MESSAGES_PER_DAY} messages per pass in any 24 hours; beyond that ` +
  `the message is still added to the back of the pass, without a notification.`;
