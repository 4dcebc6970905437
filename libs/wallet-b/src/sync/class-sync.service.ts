import { newId } from '@app/core';
import { HolderChanges, type HolderChange, type Pass } from '@app/passes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SyncJob } from './sync-job.entity';

/**
 * Queues a sync of the pass's Google class (and holders' objects) in the transaction of every
 * change of a Published pass, so a committed change is never missed. Drafts have nothing at
 * Google; a pass is synced from the change that publishes it on.
 */
@Injectable()
export class ClassSyncService implements OnModuleInit {
  constructor(private readonly hooks: HolderChanges) {}

  onModuleInit(): void {
    this.hooks.register((manager, pass) => this.enqueue(manager, pass));
    // A holder's change patches that holder's object only (an import: the objects of the
    // holders it changed), never the class or other holders' objects.
    this.hooks.registerHolderHook((manager, change) => this.enqueueForHolders(manager, change));
  }

  async enqueue(manager: EntityManager, pass: Pass): Promise<void> {
    await this.insert(manager, pass, null, null);
  }

  private async enqueueForHolders(manager: EntityManager, change: HolderChange): Promise<void> {
    await this.insert(manager, change.pass, change.holder?.id ?? null, change.since ?? null);
  }

  private async insert(
    manager: EntityManager,
    pass: Pass,
    holderId: string | null,
    holdersSince: Date | null,
  ): Promise<void> {
    if (pass.status !== 'Published') return;
    const now = new Date();
    await manager.insert(SyncJob, {
      id: newId(),
      workspaceId: pass.workspaceId,
      passId: pass.id,
      state: 'pending',
      attempts: 0,
      nextAttemptTime: now,
      leaseUntil: null,
      leasedBy: null,
      lastObjectId: null,
      objectHash: null,
      holderId,
      holdersSince,
      lastError: null,
      createdTime: now,
      updatedTime: now,
      finishedTime: null,
    });
  }
}
