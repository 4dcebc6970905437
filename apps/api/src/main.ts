import {
  ConfigError,
  exitOnFatalErrors,
  installLeanAsyncResourceBind,
  JsonLogger,
  logDestination,
  loadConfig,
} from '@app/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = new JsonLogger(config.logLevel, logDestination(config.logFormat));
  exitOnFatalErrors(logger);
  installLeanAsyncResourceBind();
  if (config.jwt.secretGenerated) {
    logger.warn(
      'JWT_SECRET is not set: using a random secret, so tokens end with this process and are not shared between instances',
    );
  }

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger,
    bodyParser: false,
  });
  configureApp(app, config);
  await app.listen(config.port);
  logger.log(
    `Listening on ${config.publicBaseUrl} (port ${config.port}); API docs at ${config.publicBaseUrl}/docs`,
    'Main',
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
