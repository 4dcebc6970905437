import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { UnsupportedMediaTypeError } from '../errors/domain-errors';
import type { AppRequest } from './request-context';
import { hasBody, isJsonMediaType, mediaTypeOf } from './request-body';

const ACCEPTS_MULTIPART = 'http:acceptsMultipart';

/** Marks an upload route that takes `multipart/form-data` as well as JSON. */
export const AcceptsMultipart = (): MethodDecorator => SetMetadata(ACCEPTS_MULTIPART, true);

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Bodies are JSON (spec: "All bodies are application/json"). A body of another type would be
 * silently ignored by the JSON parser and then fail validation confusingly; answer 415 instead.
 *
 * A guard rather than an interceptor: it only checks the request, and every interceptor wraps
 * each request in its own observable chain (about 0.1 ms of CPU per request, BENCHMARKS.md).
 * A global guard (apps/api HttpModule) after the authentication and rate-limit guards,
 * so a caller without credentials still gets 401 first.
 */
@Injectable()
export class ContentTypeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AppRequest>();
    if (METHODS_WITH_BODY.has(request.method) && hasBody(request)) {
      const type = mediaTypeOf(request.headers['content-type']);
      const json = isJsonMediaType(type);
      const multipart =
        type === 'multipart/form-data' &&
        this.reflector.get<boolean>(ACCEPTS_MULTIPART, context.getHandler()) === true;
      if (!json && !multipart) {
        throw new UnsupportedMediaTypeError(
          `Content-Type ${type === '' ? '(none)' : type} is not accepted; send application/json`,
          { 'content-type': type },
        );
      }
    }
    return true;
  }
}
