import { ForbiddenError, UnauthorizedError, type AppRequest, type Principal } from '@app/core';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** The authenticated caller. Fails loudly if used on a route without authentication. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    if (principal === undefined) throw new UnauthorizedError();
    return principal;
  },
);

/** The id of the workspace this request acts in (see WorkspaceInterceptor). */
export const CurrentWorkspace = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string => {
    const workspace = context.switchToHttp().getRequest<AppRequest>().workspace;
    if (workspace === undefined) {
      throw new ForbiddenError('The caller is not a member of any workspace');
    }
    return workspace.workspaceId;
  },
);
