import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PassesModule } from '../passes.module';
import { PassDailyStats } from './pass-daily-stats.entity';
import { PassStatsController } from './pass-stats.controller';
import { PassStatsService } from './pass-stats.service';

/**
 * Per-day pass statistics: the counting listener and `GET /wallet-pass/{id}/stats`. Imported
 * by the API and by the worker process, which records events too (APNs deactivations,
 * finished notifications): a process without it would not count them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([PassDailyStats]), PassesModule],
  controllers: [PassStatsController],
  providers: [PassStatsService],
  exports: [PassStatsService],
})
export class PassStatsModule {}
