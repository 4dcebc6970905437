import { API_KEY_SCHEME, BEARER_SCHEME, ErrorBody } from '@app/core';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication, publicBaseUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Wallet Pass Service')
    .setDescription(
      'Issue WalletA and WalletB passes, notify their holders, attach locations, run promotional ' +
        'video campaigns and upload assets. Every error response has the Error body. ' +
        'Authenticate with `Authorization: Bearer <token>` (from POST /v1/auth/login) or an ' +
        '`api-key` header (from POST /v1/api-keys).',
    )
    .setVersion('1.0.0')
    .addServer(publicBaseUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'api-key' }, API_KEY_SCHEME)
    .build();
  return SwaggerModule.createDocument(app, config, { extraModels: [ErrorBody] });
}

/** Swagger UI at /docs, the OpenAPI JSON at /docs-json. */
export function setupSwagger(app: INestApplication, publicBaseUrl: string): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, publicBaseUrl), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
