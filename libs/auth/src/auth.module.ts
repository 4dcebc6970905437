import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitModule } from '@app/core';
import { AccountsController } from './controllers/accounts.controller';
import { ApiKeysController } from './controllers/api-keys.controller';
import { AuthController } from './controllers/auth.controller';
import { MeController } from './controllers/me.controller';
import { MembersController } from './controllers/members.controller';
import { WorkspacesController } from './controllers/workspaces.controller';
import { AUTH_ENTITIES } from './entities';
import { ApiKeyStrategy } from './guards/api-key.strategy';
import { JwtStrategy } from './guards/jwt.strategy';
import { AccountStore } from './services/account-store';
import { AccountsService } from './services/accounts.service';
import { ApiKeysService } from './services/api-keys.service';
import { AuthService } from './services/auth.service';
import { BootstrapService } from './services/bootstrap.service';
import { LoginThrottle } from './services/login-throttle.service';
import { MeService } from './services/me.service';
import { MembersService } from './services/members.service';
import { PrincipalChanges } from './services/principal-cache';
import { PrincipalService } from './services/principal.service';
import { WorkspacesService } from './services/workspaces.service';

/**
 * Identity and access: users, organisations, workspaces, API keys, and the passport
 * strategies behind `AuthenticationGuard`. The guard and the workspace interceptor are
 * registered globally by the HTTP application (apps/api), not here, so that the worker can
 * import the modules that import this one without taking HTTP concerns along.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(AUTH_ENTITIES),
    PassportModule.register({ session: false, property: 'principal' }),
    JwtModule.register({}),
    RateLimitModule,
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
    PrincipalChanges,
    AccountStore,
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
  ],
  exports: [WorkspacesService, AccountsService, TypeOrmModule],
})
export class AuthModule {}
