import { AuthModule } from '@app/auth';
import { PassesModule } from '@app/passes';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Automation } from './automation.entity';
import { AutomationsController } from './automations.controller';
import { AutomationsService } from './automations.service';

/** Automations of a pass. AudiencesService comes from the global AudiencesModule. */
@Module({
  imports: [TypeOrmModule.forFeature([Automation]), PassesModule, AuthModule],
  controllers: [AutomationsController],
  providers: [AutomationsService],
  exports: [AutomationsService],
})
export class AutomationsModule {}
