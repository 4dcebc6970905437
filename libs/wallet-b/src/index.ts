export * from './callbacks/ecv2-signing-only';
export * from './callbacks/wallet-b-callback.entity';
export * from './classes/wallet-b-class.entity';
export * from './classes/wallet-b-classes.service';
export * from './google/class-types';
export * from './google/google-wallet-client';
export * from './google/kind-resources';
export * from './google/pass-resources';
export * from './google/wallet-objects.types';
export * from './messages/notification-limit';
export * from './messages/wallet-b-message.entity';
export * from './messages/wallet-b-messages.service';
export * from './objects/wallet-b-object.entity';
export * from './sync/class-sync.worker';
export * from './sync/sync-job.entity';
export * from './wallet-b.module';

import { WalletBCallback } from './callbacks/wallet-b-callback.entity';
import { WalletBClass } from './classes/wallet-b-class.entity';
import { WalletBMessage } from './messages/wallet-b-message.entity';
import { WalletBObject } from './objects/wallet-b-object.entity';
import { SyncJob } from './sync/sync-job.entity';
export const WALLET_B_ENTITIES = [
  WalletBObject,
  WalletBCallback,
  WalletBMessage,
  SyncJob,
  WalletBClass,
];
