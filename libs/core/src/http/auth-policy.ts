import { applyDecorators, SetMetadata } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiHeader,
  ApiSecurity,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
  DECORATORS,
} from '@nestjs/swagger';
import { ErrorBody } from '../errors/error-body';
import type { OrganisationRole } from './request-context';

export const AUTH_POLICY = 'auth:policy';

/** What a route asks of its caller. Every route declares one; a test checks that. */
export type AuthPolicy = { kind: 'public' } | { kind: 'authenticated'; roles?: OrganisationRole[] };

export const API_KEY_SCHEME = 'api-key';
export const BEARER_SCHEME = 'bearer';

/**
 * Open to anyone: sign-in, health, metrics, holders' pages. Swagger shows it as `security: []`
 * (OpenAPI's "no credentials"), so the document states the security of every operation.
 */
export const Public = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(AUTH_POLICY, { kind: 'public' } satisfies AuthPolicy), NoSecurity());

/**
 * `security: []` in the OpenAPI document. @nestjs/swagger drops an empty method-level
 * `@ApiSecurity` list, so on a method it goes into the operation metadata (merged, as
 * `@ApiOperation` merges), on a class into the class security list.
 */
function NoSecurity(): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      const method = descriptor.value as object;
      const operation: unknown = Reflect.getMetadata(DECORATORS.API_OPERATION, method);
      Reflect.defineMetadata(
        DECORATORS.API_OPERATION,
        { ...(operation as object | undefined), security: [] },
        method,
      );
      return;
    }
    Reflect.defineMetadata(DECORATORS.API_SECURITY, [], target);
  };
}

/**
 * Needs a bearer token or an API key; with `roles`, only those organisation roles pass.
 * Also documents both security schemes and the 401/403 Error bodies in Swagger.
 */
export const Authenticated = (options: { roles?: OrganisationRole[] } = {}) =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'authenticated', roles: options.roles } satisfies AuthPolicy),
    ApiBearerAuth(BEARER_SCHEME),
    ApiSecurity(API_KEY_SCHEME),
    ApiHeader({
      name: 'x-workspace-id',
      required: false,
      description: "Workspace to act in; the caller's first workspace when absent",
      schema: { type: 'string', pattern: '^[a-zA-Z0-9-_]+$' },
    }),
    ApiUnauthorizedResponse({
      description: 'No credentials, or an invalid token',
      type: ErrorBody,
    }),
    ApiForbiddenResponse({
      description:
        'Invalid or revoked API key, a workspace the caller is not a member of, or a role that may not do this',
      type: ErrorBody,
    }),
    ApiTooManyRequestsResponse({ description: 'Rate limit exceeded', type: ErrorBody }),
  );

/**
 * Narrows a route of an `@Authenticated()` controller to some organisation roles. Use this
 * rather than a second `@Authenticated()`, which would repeat the Swagger security entries.
 */
export const RequireRoles = (...roles: OrganisationRole[]): MethodDecorator =>
  SetMetadata(AUTH_POLICY, { kind: 'authenticated', roles } satisfies AuthPolicy);

/**
 * A route that changes a workspace's content: every role but `branded`, whose users only read.
 * One list, so that a new role is placed once.
 */
export const RequireWriter = (): MethodDecorator => RequireRoles('owner', 'admin', 'member');
