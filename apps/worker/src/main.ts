import {
  ConfigError,
  exitOnFatalErrors,
  installLeanAsyncResourceBind,
  JsonLogger,
  logDestination,
  loadConfig,
} from '@app/core';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from './worker.module';

/** A worker process without HTTP: scale these out separately from the API (docs/operations.md, "Running several instances"). */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = new JsonLogger(config.logLevel, logDestination(config.logFormat));
  exitOnFatalErrors(logger);
  installLeanAsyncResourceBind();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  // The scheduler's timers do not hold a process open (an API process and the tests must be
  // able to end), and on SQLite no socket does either: an idle worker would exit at once. It
  // runs until a signal stops it (the shutdown hooks end the process then).
  setInterval(() => undefined, 2 ** 30);
  logger.log('Worker started', 'Main');
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `Worker start-up failed: ${String(error)}\n`,
  );
  process.exit(1);
});
