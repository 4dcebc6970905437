import { AUTH_ENTITIES } from '@app/auth';

/** Every entity, for the data sources built outside Nest (migration runner, TypeORM CLI). */
export const ALL_ENTITIES = [...AUTH_ENTITIES];
