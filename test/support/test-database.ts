import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** Which database the end-to-end suite runs on: `TEST_DB=sqlite` (default) or `TEST_DB=mysql`. */
export const TEST_DB = process.env.TEST_DB === 'mysql' ? 'mysql' : 'sqlite';

const MYSQL_SERVER_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export interface TestDatabase {
  /** Environment variables that point the service at this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test app: a temporary SQLite file, or a new MariaDB/MySQL
 * database on the test server. The service's own migrations create the schema.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (TEST_DB === 'sqlite') {
    const path = join(tmpdir(), `wps-test-${suffix}.sqlite`);
    return {
      env: { DB_TYPE: 'sqlite', DB_PATH: path },
      drop: () => {
        for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
        return Promise.resolve();
      },
    };
  }

  const name = `wps_test_${suffix}`;
  const admin = await createConnection(MYSQL_SERVER_URL);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(MYSQL_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    env: { DB_TYPE: 'mysql', DB_URL: url.toString() },
    drop: async () => {
      const connection = await createConnection(MYSQL_SERVER_URL);
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}
