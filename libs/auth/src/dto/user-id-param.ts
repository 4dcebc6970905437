import { PathId } from '@app/core';

export class UserIdParam {
  @PathId()
  userId!: string;
}
