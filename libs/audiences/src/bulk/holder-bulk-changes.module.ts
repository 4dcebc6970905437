import { AuthModule } from '@app/auth';
import { RateLimitModule, RetentionWorker } from '@app/core';
import { HoldersModule } from '@app/holders';
import { PassesModule } from '@app/passes';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AudiencesModule } from '../audiences.module';
import { FINAL_BULK_CHANGE_STATUSES, HolderBulkChange } from './holder-bulk-change.entity';
import { HolderBulkChangeWorker } from './holder-bulk-change.worker';
import { HolderBulkChangesController } from './holder-bulk-changes.controller';
import { HolderBulkChangesService } from './holder-bulk-changes.service';

/** Bulk changes of holders: the API that starts them and the worker that applies them. */
@Module({
  imports: [
    TypeOrmModule.forFeature([HolderBulkChange]),
    PassesModule,
    HoldersModule,
    AudiencesModule,
    AuthModule,
    RateLimitModule,
  ],
  controllers: [HolderBulkChangesController],
  providers: [HolderBulkChangesService, HolderBulkChangeWorker],
  exports: [HolderBulkChangesService, TypeOrmModule],
})
export class HolderBulkChangesModule {
  constructor(retention: RetentionWorker) {
    // The holders a finished bulk change worked through: read by nothing once it is Done or
    // Failed (its counts stay on the change). Notifications register their own snapshots.
    const finals = FINAL_BULK_CHANGE_STATUSES.map((status) => `'${status}'`).join(', ');
    retention.register({
      table: 'audience_member',
      key: ['snapshot_id', 'holder_id'],
      expired: ({ cutoff }) => ({
        where: `snapshot_id IN (SELECT id FROM holder_bulk_change WHERE status IN (${finals}) AND finished_time < ?)`,
        parameters: [cutoff],
      }),
    });
  }
}
