import { Pass, PassesModule } from '@app/passes';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PassLocation } from './entities/pass-location.entity';
import { LocationsController } from './locations.controller';
import { LocationsService } from './locations.service';

/** Lock-screen locations of passes (`/v1/wallet-pass-location`). */
@Module({
  imports: [TypeOrmModule.forFeature([PassLocation, Pass]), PassesModule],
  controllers: [LocationsController],
  providers: [LocationsService],
  exports: [LocationsService],
})
export class LocationsModule {}
