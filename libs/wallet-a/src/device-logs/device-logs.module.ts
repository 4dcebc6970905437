import { RateLimitModule, RetentionWorker } from '@app/core';
import { PassesModule } from '@app/passes';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthenticatedDevices } from './authenticated-devices';
import { DeviceLog } from './device-log.entity';
import { DeviceLogsController } from './device-logs.controller';
import { DeviceLogsService } from './device-logs.service';

/**
 * What WalletA devices post to the PassKit web service's `/log`, kept per pass, and the route
 * that reads it. The PassKit controller hands the posts to `DeviceLogsService`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DeviceLog]), PassesModule, RateLimitModule],
  controllers: [DeviceLogsController],
  providers: [DeviceLogsService, AuthenticatedDevices],
  exports: [DeviceLogsService, AuthenticatedDevices],
})
export class DeviceLogsModule {
  constructor(retention: RetentionWorker) {
    // Entries not seen again for RETENTION_DAYS: the trouble they reported is over. Rows of a
    // deleted pass stay like its registrations and holders do, and go the same way.
    retention.register({
      table: 'wallet_a_device_log',
      key: 'id',
      expired: ({ cutoff }) => ({ where: 'last_time < ?', parameters: [cutoff] }),
    });
  }
}
