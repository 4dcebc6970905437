import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import bodyParser from 'body-parser';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { toDomainError } from './all-exceptions.filter';
import {
  DomainError,
  InvalidInputError,
  MalformedRequestError,
  PayloadTooLargeError,
} from '../errors/domain-errors';
import { MAX_JSON_DEPTH, scanJsonShape, type JsonShapeLimits } from './json-shape';
import { hasBody, isJsonMediaType } from './request-body';

/** How large a route's JSON body may be; each field falls back to {@link DEFAULT_BODY_LIMITS}. */
export interface BodyLimitsOptions {
  /** Bytes on the wire (after Content-Encoding): above it, 413. A function of the settings. */
  maxBytes?: number | ((config: AppConfig) => number);
  /** Members of any one object. */
  maxKeys?: number;
  /** Elements of any one array. */
  maxItems?: number;
  /** Object members and array elements in the whole body. */
  maxValues?: number;
}

/**
 * A route that declares nothing: room for the largest body of the small routes (a member with
 * 100 workspace ids, a notification of 1,000 characters written as `\uXXXX` escapes) several
 * times over, and no more.
 */
export const DEFAULT_BODY_LIMITS = {
  maxBytes: 64 * 1024,
  maxKeys: 100,
  maxItems: 100,
  maxValues: 1_000,
} as const;

const BODY_LIMITS = 'http:bodyLimits';

/**
 * The JSON body limits of a route (or of every route of a controller; a method's own fields win).
 * A body over `maxBytes` is a 413 `PAYLOAD_TOO_LARGE`, told by its Content-Length before a byte
 * is read; a body with more keys, elements or values than declared is a 400 `INVALID_INPUT`,
 * found by one scan of the bytes before JSON.parse and long before class-transformer.
 */
export const BodyLimits = (limits: BodyLimitsOptions): MethodDecorator & ClassDecorator =>
  SetMetadata(BODY_LIMITS, limits);

/** An upload's JSON form: the file base64-encoded (4 characters per 3 bytes) plus its envelope. */
export function base64UploadBodyBytes(config: AppConfig): number {
  return Math.ceil((config.upload.maxBytes * 4) / 3) + 64 * 1024;
}

interface RouteBody {
  maxBytes: number;
  read(request: Request, response: Response): Promise<void>;
}

/** The refusal the scan found, for the parser's callback (body-parser wraps what verify throws). */
const refusals = new WeakMap<Request, DomainError>();

/**
 * Reads and parses JSON request bodies within the limits of the route they are for
 * ({@link BodyLimits}). It replaces the one global JSON parser, which had to admit the largest
 * body of any route (a base64 upload, 13.4 MB) on every route and could not tell a login from an
 * upload. A guard, because guards know the route and run before pipes: the validation pipe only
 * ever sees a body that passed the scan. Registered after the authentication and rate-limit
 * guards, so an anonymous caller cannot make an authenticated route read its body, and a caller
 * over its rate is refused before its body is read. Guards that run before this one see no
 * `request.body`. Multipart bodies are left to multer and its own limits.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteBody>();

  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!hasBody(request) || !isJsonMediaType(request.headers['content-type'])) return true;
    const route = this.routeOf(context);
    const length = Number(request.headers['content-length']);
    if (length > route.maxBytes) throw new PayloadTooLargeError(route.maxBytes);
    return route.read(request, context.switchToHttp().getResponse<Response>()).then(() => true);
  }

  private routeOf(context: ExecutionContext): RouteBody {
    const handler = context.getHandler();
    let route = this.routes.get(handler);
    if (route === undefined) {
      route = this.createRoute({
        ...DEFAULT_BODY_LIMITS,
        ...this.reflector.get<BodyLimitsOptions | undefined>(BODY_LIMITS, context.getClass()),
        ...this.reflector.get<BodyLimitsOptions | undefined>(BODY_LIMITS, handler),
      });
      this.routes.set(handler, route);
    }
    return route;
  }

  private createRoute(limits: Required<BodyLimitsOptions>): RouteBody {
    const maxBytes =
      typeof limits.maxBytes === 'function' ? limits.maxBytes(this.config) : limits.maxBytes;
    const shape: JsonShapeLimits = {
      maxDepth: MAX_JSON_DEPTH,
      maxKeys: limits.maxKeys,
      maxItems: limits.maxItems,
      maxValues: limits.maxValues,
    };
    const parse = bodyParser.json({
      limit: maxBytes,
      type: (request) => isJsonMediaType(request.headers['content-type']),
      verify: (request, _response, bytes) => {
        const violation = scanJsonShape(bytes, shape).violation;
        if (violation !== undefined) {
          refusals.set(
            request as Request,
            new InvalidInputError({ [violation.path]: violation.message }),
          );
          throw new Error(violation.message);
        }
      },
    });
    return {
      maxBytes,
      read: (request, response) =>
        new Promise<void>((resolve, reject) => {
          parse(request, response, (error?: unknown) => {
            if (error === undefined || error === null) {
              resolve();
              return;
            }
            reject(
              refusals.get(request) ??
                toDomainError(error) ??
                new MalformedRequestError('Request body could not be read'),
            );
          });
        }),
    };
  }
}
