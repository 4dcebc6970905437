import { Authenticated, ErrorBody, type Principal } from '@app/core';
import { Body, Controller, Get, HttpCode, Ip, Patch } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ChangePasswordDto } from '../dto/change-password.dto';
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

  @Patch('password')
  @HttpCode(204)
  @ApiOperation({
    summary: "Change the caller's password",
    description:
      'Every bearer token issued before the change stops working (sign in again); API keys keep working.',
  })
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ description: 'newPassword too short or too weak', type: ErrorBody })
  @ApiForbiddenResponse({ description: 'Wrong current password', type: ErrorBody })
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords', type: ErrorBody })
  async changePassword(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePasswordDto,
    @Ip() clientIp: string,
  ): Promise<void> {
    await this.me.changePassword(principal, body, clientIp);
  }
}
