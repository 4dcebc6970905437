import { AuthModule } from '@app/auth';
import { RateLimitModule } from '@app/core';
import { HOLDER_SEGMENT_FILTER } from '@app/holders';
import { PassesModule } from '@app/passes';
import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AudienceController, SegmentsController } from './audiences.controller';
import { AudiencesService } from './audiences.service';
import { Segment } from './segment.entity';
import { SegmentsService } from './segments.service';

/**
 * Audiences and segments. Global so that the holders' list (a lower library, which cannot
 * import this one) gets its segment filter: {@link AudiencesService} under
 * `HOLDER_SEGMENT_FILTER`.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Segment]), PassesModule, AuthModule, RateLimitModule],
  controllers: [SegmentsController, AudienceController],
  providers: [
    AudiencesService,
    SegmentsService,
    { provide: HOLDER_SEGMENT_FILTER, useExisting: AudiencesService },
  ],
  exports: [AudiencesService, SegmentsService, HOLDER_SEGMENT_FILTER, TypeOrmModule],
})
export class AudiencesModule {}
