import {
  AllExceptionsFilter,
  ContentTypeGuard,
  createValidationPipe,
  bodyParserErrorMiddleware,
  rejectDeeplyNestedJson,
  requestContextMiddleware,
  type AppConfig,
} from '@app/core';
import { RequestMethod } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setupSwagger } from './swagger';

/** Base64 makes a file a third larger; JSON uploads carry that plus a little envelope. */
function jsonBodyLimit(config: AppConfig): number {
  return Math.ceil((config.upload.maxBytes * 4) / 3) + 64 * 1024;
}

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
 * they exercise exactly what production runs. The app must be created with `bodyParser: false`.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.set('trust proxy', config.trustProxyHops);
  app.disable('x-powered-by');
  app.use(requestContextMiddleware);
  app.useBodyParser('json', {
    limit: jsonBodyLimit(config),
    type: ['application/json', 'application/*+json'],
    verify: rejectDeeplyNestedJson,
  });
  app.use(bodyParserErrorMiddleware);
  app.setGlobalPrefix('v1', {
    exclude: UNVERSIONED.map((path) => ({ path, method: RequestMethod.ALL })),
  });
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalGuards(new ContentTypeGuard(app.get(Reflector)));
  setupSwagger(app, config.publicBaseUrl);
  app.enableShutdownHooks();
}
