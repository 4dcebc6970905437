import { ForbiddenError, ID_PATTERN, InvalidInputError, type AppRequest } from '@app/core';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';

export const WORKSPACE_HEADER = 'x-workspace-id';

/**
 * Resolves the workspace of an authenticated request once: the `x-workspace-id` header when
 * sent (well-formed, and the caller must be a member), else the caller's first workspace.
 * Handlers read it with `@CurrentWorkspace()`.
 */
@Injectable()
export class WorkspaceInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    const principal = request.principal;
    if (principal !== undefined) {
      const header = request.headers[WORKSPACE_HEADER];
      const requested = Array.isArray(header) ? header[0] : header;
      if (requested === undefined || requested === '') {
        const first = principal.workspaceIds[0];
        if (first !== undefined) request.workspace = { workspaceId: first };
      } else if (!ID_PATTERN.test(requested) || requested.length > 64) {
        throw new InvalidInputError({ [WORKSPACE_HEADER]: 'must match ^[a-zA-Z0-9-_]+$' });
      } else if (!principal.workspaceIds.includes(requested)) {
        throw new ForbiddenError('The caller is not a member of this workspace', {
          [WORKSPACE_HEADER]: requested,
        });
      } else {
        request.workspace = { workspaceId: requested };
      }
    }
    return next.handle();
  }
}
