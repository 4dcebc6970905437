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
  private readonly committedListeners: ((pass: Pass) => void)[] = [];

  register(hook: PassChangeHook): void {
    this.hooks.push(hook);
  }

  /** Told after the changing transaction committed (to start work it queued at once). */
  onCommitted(listener: (pass: Pass) => void): void {
    this.committedListeners.push(listener);
  }

  /** Call inside the transaction that changed the pass. */
  async changed(manager: EntityManager, pass: Pass): Promise<void> {
    for (const hook of this.hooks) await hook(manager, pass);
  }

  /** Call once that transaction committed. */
  committed(pass: Pass): void {
    for (const listener of this.committedListeners) listener(pass);
  }
}
