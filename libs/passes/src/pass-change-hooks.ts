import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Pass } from './entities/pass.entity';

/** Runs inside the transaction that changed what holders see of a pass (its version moved on). */
export type PassChangeHook = (manager: EntityManager, pass: Pass) => Promise<void>;

/**
 * Lets wallet integrations react to pass changes in the same transaction as the change (to
 * queue device pushes, say) without the passes module knowing about them.
 */
@Injectable()
export class PassChangeHooks {
  private readonly hooks: PassChangeHook[] = [];

  register(hook: PassChangeHook): void {
    this.hooks.push(hook);
  }

  async changed(manager: EntityManager, pass: Pass): Promise<void> {
    for (const hook of this.hooks) await hook(manager, pass);
  }
}
