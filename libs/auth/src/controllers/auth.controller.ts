import { ErrorBody, Public } from '@app/core';
import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AccessTokenResponse, LoginDto } from '../dto/login.dto';
import { AuthService } from '../services/auth.service';

@ApiTags('Identity')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with e-mail and password and get a bearer token',
    description:
      'Throttled per client IP and per e-mail address: after repeated failures further attempts are answered 429 with Retry-After, without the password being checked.',
  })
  @ApiOkResponse({ type: AccessTokenResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiUnauthorizedResponse({ description: 'Wrong e-mail or password', type: ErrorBody })
  @ApiTooManyRequestsResponse({ description: 'Too many failed sign-ins', type: ErrorBody })
  login(@Body() body: LoginDto, @Ip() clientIp: string): Promise<AccessTokenResponse> {
    return this.auth.login(body.email, body.password, clientIp);
  }
}
