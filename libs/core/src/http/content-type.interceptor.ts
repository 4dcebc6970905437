import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { UnsupportedMediaTypeError } from '../errors/domain-errors';
import type { AppRequest } from './request-context';

const ACCEPTS_MULTIPART = 'http:acceptsMultipart';

/** Marks an upload route that takes `multipart/form-data` as well as JSON. */
export const AcceptsMultipart = (): MethodDecorator => SetMetadata(ACCEPTS_MULTIPART, true);

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(request: AppRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

/**
 * Bodies are JSON (spec: "All bodies are application/json"). A body of another type would be
 * silently ignored by the JSON parser and then fail validation confusingly; answer 415 instead.
 */
@Injectable()
export class ContentTypeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    if (METHODS_WITH_BODY.has(request.method) && hasBody(request)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const json = type === 'application/json' || type.endsWith('+json');
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
    return next.handle();
  }
}
