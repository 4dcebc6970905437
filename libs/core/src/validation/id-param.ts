import { PathId } from './validation';

/** `{id}` in a path, checked against the spec's id pattern. */
export class IdParam {
  @PathId()
  id!: string;
}
