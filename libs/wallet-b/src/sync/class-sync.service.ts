import { newId } from '@app/core';
import { HolderChanges, type JobReach } from '@app/passes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SyncJob } from './sync-job.entity';

/**
 * Queues a sync of the pass's Google class (and holders' objects) in the transaction of every
 * change of a Published pass, so a committed change is never missed. Drafts have nothing at
 * Google; a pass is synced from the change that publishes it on. A holder's change patches that
 * holder's object only (an import: the objects of the holders it changed), never the class or
 * other holders' objects.
 */
@Injectable()
export class ClassSyncService implements OnModuleInit {
  constructor(private readonly hooks: HolderChanges) {}

  onModuleInit(): void {
    this.hooks.registerJobQueue((manager, reach) => this.enqueue(manager, reach));
  }

  private async enqueue(
    manager: EntityManager,
    { pass, holderId, holdersSince }: JobReach,
  ): Promise<void> {
    if (pass.status !== 'Published') return;
    const now = new Date();
    await manager.insert(SyncJob, {
      id: newId(),
      workspaceId: pass.workspaceId,
      passId: pass.id,
      holderId,
      holdersSince,
      state: 'pending',
      attempts: 0,
      nextAttemptTime: now,
      leaseUntil: null,
      leasedBy: null,
      lastObjectId: null,
      objectHash: null,
      lastError: null,
      createdTime: now,
      updatedTime: now,
      finishedTime: null,
    });
  }
}
