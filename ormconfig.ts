import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from './apps/api/src/entities';
import { dataSourceOptions, loadConfig } from './libs/core/src';

/**
 * The DataSource for the TypeORM CLI, from the same environment variables as the service:
 *   npm run build && npx typeorm -d dist/ormconfig.js migration:show
 */
export default new DataSource(dataSourceOptions(loadConfig().database, ALL_ENTITIES));
