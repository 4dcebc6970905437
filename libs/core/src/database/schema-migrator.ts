import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { sqlDialect } from './dialect';
import { withDatabaseTimeouts } from './mysql-deadlines';

const MIGRATION_LOCK = 'wallet_pass_service_migrations';

/**
 * Applies pending migrations at start (DB_MIGRATE_ON_START, default true). On MySQL a named
 * lock makes instances that start together take turns, so only one applies each migration.
 */
export function runMigrations(dataSource: DataSource, logger?: Logger): Promise<string[]> {
  // No query deadline: a migration may rewrite a large table, and the lock wait is 120 s.
  return withDatabaseTimeouts({ queryMs: null }, () => migrate(dataSource, logger));
}

async function migrate(dataSource: DataSource, logger?: Logger): Promise<string[]> {
  const lockRunner = sqlDialect(dataSource).isMysql ? dataSource.createQueryRunner() : null;
  try {
    if (lockRunner) {
      const [row] = (await lockRunner.query('SELECT GET_LOCK(?, 120) AS acquired', [
        MIGRATION_LOCK,
      ])) as { acquired: number | string }[];
      if (Number(row?.acquired) !== 1) throw new Error('Timed out waiting for the migration lock');
    }
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    for (const migration of applied) logger?.log(`Applied migration ${migration.name}`);
    return applied.map((migration) => migration.name);
  } finally {
    if (lockRunner) {
      await lockRunner.query('SELECT RELEASE_LOCK(?)', [MIGRATION_LOCK]).catch(() => undefined);
      await lockRunner.release();
    }
  }
}

@Injectable()
export class SchemaMigrator implements OnModuleInit {
  private readonly logger = new Logger('Migrations');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.database.migrateOnStart) return;
    await runMigrations(this.dataSource, this.logger);
  }
}
