import {
  AllExceptionsFilter,
  applyServerTimeouts,
  createValidationPipe,
  HttpObservabilityMiddleware,
  requestContextMiddleware,
  requestDeadlineMiddleware,
  type AppConfig,
} from '@app/core';
import { RequestMethod } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { corsOptions, securityHeaders } from './security-headers';
import { setupSwagger } from './swagger';

/** Paths outside the versioned API. */
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
 * JSON bodies are read by `JsonBodyGuard`, within the limits of the route they are for. The
 * global guards and interceptor are in `HttpModule`, which AppModule imports.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.set('trust proxy', config.trustProxyHops);
  app.disable('x-powered-by');
  // First, so that every answer carries them, those of the middleware below included.
  app.use(securityHeaders(config));
  // Before anything that could refuse a preflight (it carries no credentials).
  const cors = corsOptions(config);
  if (cors !== undefined) app.enableCors(cors);
  app.use(requestContextMiddleware);
  app.use(requestDeadlineMiddleware(config.requestDeadlineMs));
  // The access-log line and the metrics sample, for every request that reaches the app.
  const observability = app.get(HttpObservabilityMiddleware);
  app.use(observability.use.bind(observability));
  applyServerTimeouts(app.getHttpServer(), config.requestDeadlineMs);
  app.setGlobalPrefix('v1', {
    exclude: UNVERSIONED.map((path) => ({ path, method: RequestMethod.ALL })),
  });
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app, config.publicBaseUrl);
  app.enableShutdownHooks();
}
