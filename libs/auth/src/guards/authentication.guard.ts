import {
  APP_CONFIG,
  AUTH_POLICY,
  FailureCounter,
  ForbiddenError,
  type AppConfig,
  UnauthorizedError,
  type AppRequest,
  type AuthPolicy,
  type Principal,
} from '@app/core';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, type IAuthModuleOptions } from '@nestjs/passport';
import type { Response } from 'express';
import { API_KEY_HEADER, API_KEY_STRATEGY } from './api-key.strategy';
import { JWT_STRATEGY } from './jwt.strategy';

const PASSPORT_OPTIONS: IAuthModuleOptions = { session: false, property: 'principal' };

class BearerTokenGuard extends AuthGuard(JWT_STRATEGY) {
  override getAuthenticateOptions(): IAuthModuleOptions {
    return PASSPORT_OPTIONS;
  }

  override handleRequest<TUser = Principal>(
    error: unknown,
    principal: unknown,
    info: unknown,
  ): TUser {
    // `error` is set only when looking the user up failed (e.g. the database is down).
    if (error) throw error as Error;
    if (principal) return principal as TUser;
    const reason = (info as { name?: string } | undefined)?.name;
    throw new UnauthorizedError(
      reason === 'TokenExpiredError' ? 'Bearer token has expired' : 'Bearer token is invalid',
    );
  }
}

class ApiKeyGuard extends AuthGuard(API_KEY_STRATEGY) {
  override getAuthenticateOptions(): IAuthModuleOptions {
    return PASSPORT_OPTIONS;
  }

  override handleRequest<TUser = Principal>(error: unknown, principal: unknown): TUser {
    if (error) throw error as Error;
    if (principal) return principal as TUser;
    throw new ForbiddenError('Invalid API key');
  }
}

/**
 * The one global guard. Routes declare `@Public()` or `@Authenticated()`; a route that
 * declares nothing is treated as authenticated. A request carries an `api-key` header or a
 * bearer token: none is a 401, a bad key a 403 (spec, Authentication).
 *
 * Every answer of an authenticated route is `Cache-Control: no-store`, so no cache keeps what
 * one caller was shown.
 *
 * Refused credentials are counted per client IP here, because the per-caller rate limit runs
 * after this guard and never sees them. Once an IP is over AUTH_FAILURES_PER_IP in its window,
 * its credentials are refused with 429 before they are looked at. A request without any
 * credentials is not counted: it guesses nothing and costs no lookup.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  private readonly bearer = new BearerTokenGuard();
  private readonly apiKey = new ApiKeyGuard();

  constructor(
    private readonly reflector: Reflector,
    private readonly failures: FailureCounter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]) ?? { kind: 'authenticated' };
    if (policy.kind === 'public') return true;

    // A shared cache treats an answer to a request with `Authorization` as private (RFC 9111
    // §3.5), but not one to a request with an `api-key` header. Set before the credentials are
    // checked, so refusals and errors carry it too; a route that sets its own replaces it.
    context.switchToHttp().getResponse<Response>().setHeader('Cache-Control', 'no-store');

    const request = context.switchToHttp().getRequest<AppRequest>();
    if (
      request.headers[API_KEY_HEADER] === undefined &&
      request.headers.authorization === undefined
    ) {
      throw new UnauthorizedError('Send a bearer token or an api-key header');
    }
    await this.authenticate(context, request);

    const principal = request.principal;
    if (principal === undefined) throw new UnauthorizedError();
    if (policy.roles !== undefined && !policy.roles.includes(principal.role)) {
      throw new ForbiddenError(`This operation needs one of the roles: ${policy.roles.join(', ')}`);
    }
    return true;
  }

  /** Checks the credentials sent, counting a refusal against the client IP. */
  private async authenticate(context: ExecutionContext, request: AppRequest): Promise<void> {
    const { perIp, windowSeconds } = this.config.rateLimit.authFailures;
    const counter = `authfail:ip:${request.ip ?? 'unknown'}`;
    await this.failures.assertBelow(counter, perIp);
    try {
      if (request.headers[API_KEY_HEADER] !== undefined) {
        await this.apiKey.canActivate(context);
      } else {
        if (!/^Bearer\s+\S+$/i.test(request.headers.authorization ?? '')) {
          throw new UnauthorizedError('Authorization header must be "Bearer <token>"');
        }
        await this.bearer.canActivate(context);
      }
    } catch (error) {
      // Only a refused credential counts; a database that is down (503) is not the caller's doing.
      if (error instanceof UnauthorizedError || error instanceof ForbiddenError) {
        await this.failures.record(counter, windowSeconds * 1000);
      }
      throw error;
    }
  }
}
