import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitGuard } from '@app/core';
import { AccountsController } from './controllers/accounts.controller';
import { ApiKeysController } from './controllers/api-keys.controller';
import { AuthController } from './controllers/auth.controller';
import { MeController } from './controllers/me.controller';
import { MembersController } from './controllers/members.controller';
import { WorkspacesController } from './controllers/workspaces.controller';
import { AUTH_ENTITIES } from './entities';
import { ApiKeyStrategy } from './guards/api-key.strategy';
import { AuthenticationGuard } from './guards/authentication.guard';
import { JwtStrategy } from './guards/jwt.strategy';
import { WorkspaceInterceptor } from './guards/workspace.interceptor';
import { AccountsService } from './services/accounts.service';
import { ApiKeysService } from './services/api-keys.service';
import { AuthService } from './services/auth.service';
import { BootstrapService } from './services/bootstrap.service';
import { LoginThrottle } from './services/login-throttle.service';
import { MeService } from './services/me.service';
import { MembersService } from './services/members.service';
import { PrincipalService } from './services/principal.service';
import { WorkspacesService } from './services/workspaces.service';

/**
 * Identity and access: users, organisations, workspaces, API keys, and the global guards
 * (authentication, then rate limiting per caller) and workspace interceptor.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(AUTH_ENTITIES),
    PassportModule.register({ session: false, property: 'principal' }),
    JwtModule.register({}),
  ],
  controllers: [
    AuthController,
    AccountsController,
    MeController,
    WorkspacesController,
    MembersController,
    ApiKeysController,
  ],
  providers: [
    PrincipalService,
    AccountsService,
    AuthService,
    LoginThrottle,
    MeService,
    WorkspacesService,
    MembersService,
    ApiKeysService,
    BootstrapService,
    JwtStrategy,
    ApiKeyStrategy,
    // Guards run in this order: who is calling, then how often they have called.
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useExisting: RateLimitGuard },
    { provide: APP_INTERCEPTOR, useClass: WorkspaceInterceptor },
  ],
  exports: [WorkspacesService, AccountsService, TypeOrmModule],
})
export class AuthModule {}
