import { ConfigError, dataSourceOptions, loadConfig, runMigrations } from '@app/core';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from './entities';

/** `npm run migration:run`: applies pending migrations and exits (a release step). */
async function main(): Promise<void> {
  const config = loadConfig();
  const dataSource = new DataSource(dataSourceOptions(config.database, ALL_ENTITIES));
  await dataSource.initialize();
  try {
    const applied = await runMigrations(dataSource);
    process.stdout.write(
      applied.length === 0 ? 'No pending migrations.\n' : `Applied: ${applied.join(', ')}\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError ? `${error.message}\n` : `Migration failed: ${String(error)}\n`,
  );
  process.exit(1);
});
