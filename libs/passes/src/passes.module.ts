import { AuthModule } from '@app/auth';
import { UploadsModule } from '@app/uploads';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { PassChangeHooks } from './pass-change-hooks';
import { PassesController } from './passes.controller';
import { PassesService } from './passes.service';
import { ShortLinksService } from './short-links.service';

@Module({
  imports: [TypeOrmModule.forFeature([Pass, ShortLink]), AuthModule, UploadsModule],
  controllers: [PassesController],
  providers: [PassesService, ShortLinksService, PassChangeHooks],
  exports: [PassesService, ShortLinksService, PassChangeHooks, TypeOrmModule],
})
export class PassesModule {}
