import { loadConfig, type AppConfig } from '@app/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import request from 'supertest';
import { AppModule } from '../../apps/api/src/app.module';
import { configureApp } from '../../apps/api/src/app.setup';
import { createTestDatabase, type TestDatabase } from './test-database';

export const OWNER_EMAIL = 'owner@test.example';
export const OWNER_PASSWORD = 'owner-password-1';
export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  server: Server;
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * Starts the real HTTP application, configured exactly as main.ts does, on a fresh database
 * of the dialect under test (or on `given`, which it then drops on close). `env` overrides
 * any setting.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  given?: TestDatabase,
): Promise<TestApp> {
  const database = given ?? (await createTestDatabase());
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL: OWNER_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: OWNER_PASSWORD,
    STORAGE_DIR: '/tmp/wps-test-uploads',
    ...database.env,
    ...env,
  });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger: false,
    bodyParser: false,
  });
  configureApp(app, config);
  await app.init();
  return {
    app,
    config,
    server: app.getHttpServer(),
    database,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

/** Signs in and returns the bearer token. */
export async function login(server: Server, email: string, password: string): Promise<string> {
  const response = await request(server)
    .post('/v1/auth/login')
    .send({ email, password })
    .expect(200);
  return (response.body as { accessToken: string }).accessToken;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
