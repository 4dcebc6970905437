import {
  AllExceptionsFilter,
  applyServerTimeouts,
  ClientIpLimitGuard,
  ContentTypeGuard,
  createValidationPipe,
  JsonBodyGuard,
  RATE_LIMIT_STORE,
  requestContextMiddleware,
  requestDeadlineMiddleware,
  type AppConfig,
  type RateLimitStore,
} from '@app/core';
import { RequestMethod } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setupSwagger } from './swagger';

/** Paths outside the versioned API (DESIGN.md §2). */
const UNVERSIONED = [
  'health',
  'metrics',
  'passkit/{*rest}',
  'callbacks/{*rest}',
  'p/{*rest}',
  'l/{*rest}',
  'files/{*rest}',
];

/**
 * Everything main.ts does to the app besides listening, shared with the end-to-end tests so
 * they exercise exactly what production runs. The app must be created with `bodyParser: false`:
 * JSON bodies are read by {@link JsonBodyGuard}, within the limits of the route they are for.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.set('trust proxy', config.trustProxyHops);
  app.disable('x-powered-by');
  app.use(requestContextMiddleware);
  app.use(requestDeadlineMiddleware(config.requestDeadlineMs));
  applyServerTimeouts(app.getHttpServer(), config.requestDeadlineMs);
  app.setGlobalPrefix('v1', {
    exclude: UNVERSIONED.map((path) => ({ path, method: RequestMethod.ALL })),
  });
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  const reflector = app.get(Reflector);
  // After the authentication and rate-limit guards (APP_GUARD), in this order: a body of the
  // wrong type or over a route's per-IP budget is refused before it is read.
  app.useGlobalGuards(
    new ContentTypeGuard(reflector),
    new ClientIpLimitGuard(reflector, app.get<RateLimitStore>(RATE_LIMIT_STORE)),
    new JsonBodyGuard(reflector, config),
  );
  setupSwagger(app, config.publicBaseUrl);
  app.enableShutdownHooks();
}
