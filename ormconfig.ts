import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from './apps/api/src/entities';
import { dataSourceOptions, loadConfig } from './libs/core/src';

/**
 * The DataSource for the TypeORM CLI, from the same environment variables as the service:
 *   npm run build && npx typeorm -d dist/ormconfig.js migration:show
 */
const database = loadConfig().database;
// The CLI runs migrations, which may rewrite large tables: the longest query deadline allowed
// (`npm run migration:run` runs them without one).
export default new DataSource(
  dataSourceOptions(
    database.type === 'mysql'
      ? { ...database, timeouts: { ...database.timeouts, queryMs: 3_600_000 } }
      : database,
    ALL_ENTITIES,
  ),
);
