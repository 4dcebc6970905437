import { Authenticated, type Principal } from '@app/core';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MeResponse } from '../dto/me.dto';
import { CurrentPrincipal } from '../guards/decorators';
import { MeService } from '../services/me.service';

@ApiTags('Identity')
@Controller('me')
@Authenticated()
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  @ApiOperation({ summary: 'The caller: user, organisation, and workspaces with roles' })
  @ApiOkResponse({ type: MeResponse })
  describe(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.me.describe(principal);
  }
}
