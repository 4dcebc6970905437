import { APP_CONFIG, RetentionWorker, type AppConfig } from '@app/core';
import { PassesModule } from '@app/passes';
import { UploadsModule } from '@app/uploads';
import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GoogleRootKeys } from './callbacks/root-keys';
import { WalletBCallback } from './callbacks/wallet-b-callback.entity';
import { WalletBCallbacksController } from './callbacks/wallet-b-callbacks.controller';
import { WalletBCallbacksService } from './callbacks/wallet-b-callbacks.service';
import { WalletBClass } from './classes/wallet-b-class.entity';
import { WalletBClassesService } from './classes/wallet-b-classes.service';
import { GoogleWalletClient } from './google/google-wallet-client';
import {
  loadServiceAccount,
  WALLET_B_SERVICE_ACCOUNT,
  type ServiceAccount,
} from './google/service-account';
import { WalletBMessage } from './messages/wallet-b-message.entity';
import { WalletBMessagesService } from './messages/wallet-b-messages.service';
import { WalletBObject } from './objects/wallet-b-object.entity';
import { ClassSyncService } from './sync/class-sync.service';
import { ClassSyncWorker } from './sync/class-sync.worker';
import { SyncJob } from './sync/sync-job.entity';

/**
 * WalletB (Google Wallet) end to end: pass classes kept in sync, "Add to WalletB" save links
 * (`googleSaveUrl`, the holder page's button), messages to holders, and Google's save/delete
 * callbacks driving the google* counters.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      WalletBObject,
      WalletBCallback,
      WalletBMessage,
      SyncJob,
      WalletBClass,
    ]),
    PassesModule,
    UploadsModule,
  ],
  controllers: [WalletBCallbacksController],
  providers: [
    {
      provide: WALLET_B_SERVICE_ACCOUNT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): ServiceAccount | null => {
        const path = config.walletB.serviceAccountPath;
        return path === undefined ? null : loadServiceAccount(path);
      },
    },
    {
      provide: GoogleWalletClient,
      inject: [APP_CONFIG, WALLET_B_SERVICE_ACCOUNT],
      useFactory: (config: AppConfig, account: ServiceAccount | null) =>
        new GoogleWalletClient(config.walletB.apiUrl, account, {
          requestTimeoutMs: config.walletB.timeoutMs,
          logger: new Logger('GoogleWallet'),
        }),
    },
    {
      provide: GoogleRootKeys,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new GoogleRootKeys(config.walletB.callbackKeysUrl),
    },
    WalletBClassesService,
    WalletBMessagesService,
    WalletBCallbacksService,
    ClassSyncService,
    ClassSyncWorker,
  ],
  exports: [WalletBMessagesService, ClassSyncWorker],
})
export class WalletBModule {
  constructor(retention: RetentionWorker) {
    // Sync jobs that ended long ago, except each pass's latest done one: ClassSyncWorker reads
    // its object hash to skip patching every holder's object when their content did not change.
    retention.register({
      table: 'wallet_b_sync_job',
      key: 'id',
      expired: ({ cutoff }) => ({
        where:
          "finished_time < ? AND (state IN ('superseded', 'failed') OR (state = 'done' AND " +
          'EXISTS (SELECT 1 FROM wallet_b_sync_job newer WHERE newer.pass_id = ' +
          "wallet_b_sync_job.pass_id AND newer.state = 'done' AND " +
          'newer.finished_time > wallet_b_sync_job.finished_time)))',
        parameters: [cutoff],
      }),
    });
    // A nonce is needed only while Google may still send its callback (it verifies until
    // expTimeMillis); nonces stored before their expiry was are kept RETENTION_DAYS.
    retention.register({
      table: 'wallet_b_callback',
      key: 'nonce',
      expired: ({ now, cutoff }) => ({
        where: 'expires_time < ? OR (expires_time IS NULL AND received_time < ?)',
        parameters: [now, cutoff],
      }),
    });
  }
}
