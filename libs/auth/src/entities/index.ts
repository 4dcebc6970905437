import { Account } from './account.entity';
import { ApiKey } from './api-key.entity';
import { Organisation } from './organisation.entity';
import { User } from './user.entity';
import { WorkspaceMembership } from './workspace-membership.entity';
import { Workspace } from './workspace.entity';

export { Account, ApiKey, Organisation, User, Workspace, WorkspaceMembership };

export const AUTH_ENTITIES = [Organisation, User, Workspace, WorkspaceMembership, Account, ApiKey];
