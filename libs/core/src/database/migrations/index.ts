import { CreateIdentity1763820000000 } from './1763820000000-create-identity';

/** Every migration, oldest first. A new migration is added here and nowhere else. */
export const MIGRATIONS = [CreateIdentity1763820000000];
