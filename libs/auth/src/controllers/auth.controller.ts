import { ErrorBody, Public } from '@app/core';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
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
  @ApiOperation({ summary: 'Sign in with e-mail and password and get a bearer token' })
  @ApiOkResponse({ type: AccessTokenResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  @ApiUnauthorizedResponse({ description: 'Wrong e-mail or password', type: ErrorBody })
  login(@Body() body: LoginDto): Promise<AccessTokenResponse> {
    return this.auth.login(body.email, body.password);
  }
}
