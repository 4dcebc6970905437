import { APP_CONFIG, RateLimitModule, RetentionWorker, type AppConfig } from '@app/core';
import { HoldersModule } from '@app/holders';
import { LocationsModule } from '@app/locations';
import { PassesModule } from '@app/passes';
import { UploadsModule } from '@app/uploads';
import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeviceFetch } from './delivery/device-fetch.entity';
import { FetchConfirmations } from './delivery/fetch-confirmations';
import { DeviceLogsModule } from './device-logs/device-logs.module';
import { HolderController } from './holder/holder.controller';
import { HolderService } from './holder/holder.service';
import { ImageScales } from './package/image-scales';
import { PassPackageService } from './package/pass-package.service';
import { PassKitController } from './passkit/passkit.controller';
import { PassKitService } from './passkit/passkit.service';
import { PassTokenService } from './signing/pass-token.service';
import { Registration } from './passkit/registration.entity';
import { RegistrationsService } from './passkit/registrations.service';
import { SecretSealer } from './signing/secret-sealer';
import { SerialOwners } from './signing/serial-owners';
import { SigningMaterialProvider } from './signing/signing-material';
import { ApnsPusher } from './updates/apns-pusher';
import { PassUpdateWorker } from './updates/pass-update.worker';
import { PassUpdatesService } from './updates/pass-updates.service';
import { PushJob } from './updates/push-job.entity';
import { RegistrationFanOut } from './updates/registration-fan-out';
import { WALLET_A_PUSHER } from './updates/wallet-a-pusher';

/**
 * WalletA end to end: signed packages, the holder's page, Apple's PassKit web service, and
 * APNs pushes when a pass changes.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Registration, PushJob, DeviceFetch]),
    PassesModule,
    HoldersModule,
    UploadsModule,
    LocationsModule,
    RateLimitModule,
    DeviceLogsModule,
  ],
  controllers: [PassKitController, HolderController],
  providers: [
    SigningMaterialProvider,
    SecretSealer,
    SerialOwners,
    PassTokenService,
    ImageScales,
    PassPackageService,
    RegistrationsService,
    FetchConfirmations,
    PassKitService,
    HolderService,
    PassUpdatesService,
    PassUpdateWorker,
    RegistrationFanOut,
    {
      provide: WALLET_A_PUSHER,
      inject: [APP_CONFIG, SigningMaterialProvider],
      useFactory: (config: AppConfig, signing: SigningMaterialProvider) =>
        new ApnsPusher(config, signing, new Logger('APNs')),
    },
  ],
  exports: [
    PassPackageService,
    RegistrationsService,
    PassUpdateWorker,
    RegistrationFanOut,
    SigningMaterialProvider,
    SecretSealer,
    WALLET_A_PUSHER,
  ],
})
export class WalletAModule {
  constructor(retention: RetentionWorker) {
    // Push jobs that ended long ago: nothing reads them again.
    retention.register({
      table: 'wallet_a_push_job',
      key: 'id',
      expired: ({ cutoff }) => ({
        where: "state IN ('done', 'superseded', 'failed') AND finished_time < ?",
        parameters: [cutoff],
      }),
    });
    // Fetches of versions made long ago: notifications that old confirm nothing more.
    retention.register({
      table: 'wallet_a_fetch',
      key: 'id',
      expired: ({ cutoff }) => ({ where: 'version_time < ?', parameters: [cutoff] }),
    });
  }
}
