import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { newId } from '../ids/ids';

/** Who is calling: set by the authentication guard. */
export interface Principal {
  userId: string;
  organisationId: string;
  role: OrganisationRole;
  email: string;
  /** Workspaces the user is a member of, in the order they were assigned. */
  workspaceIds: string[];
  /** Set when the request authenticated with an API key. */
  apiKeyId?: string;
}

export type OrganisationRole = 'owner' | 'admin' | 'member' | 'branded';
export const ORGANISATION_ROLES: readonly OrganisationRole[] = [
  'owner',
  'admin',
  'member',
  'branded',
];

/** The workspace a request acts in: resolved once by the workspace interceptor. */
export interface WorkspaceContext {
  workspaceId: string;
}

export interface AppRequest extends Request {
  requestId: string;
  principal?: Principal;
  workspace?: WorkspaceContext;
}

interface RequestContextStore {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContextStore>();

/** The id of the request being served, for logs written far from the controller. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * First middleware of every request: gives it a time-ordered id (the Error body's `txId`),
 * echoes it as `x-request-id`, and makes it visible to logs through AsyncLocalStorage.
 */
export function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
  const requestId = newId();
  (req as AppRequest).requestId = requestId;
  res.setHeader('x-request-id', requestId);
  storage.run({ requestId }, next);
}
