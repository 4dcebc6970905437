import { newId } from '@app/core';
import { HolderChanges, type JobReach } from '@app/passes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PushJob } from './push-job.entity';

/**
 * Queues "this pass changed" pushes in the transaction of the change itself: to every device
 * of the pass (shared and holders' copies) when the pass changed, to one holder's devices when
 * that holder changed, to the devices of holders changed since a time after an import.
 */
@Injectable()
export class PassUpdatesService implements OnModuleInit {
  constructor(private readonly hooks: HolderChanges) {}

  onModuleInit(): void {
    this.hooks.registerJobQueue((manager, reach) => this.enqueue(manager, reach));
  }

  private async enqueue(
    manager: EntityManager,
    { pass, holderId, holdersSince }: JobReach,
  ): Promise<void> {
    const now = new Date();
    await manager.insert(PushJob, {
      id: newId(),
      workspaceId: pass.workspaceId,
      passId: pass.id,
      passVersion: pass.version,
      holderId,
      holdersSince,
      state: 'pending',
      leaseUntil: null,
      leasedBy: null,
      lastRegistrationId: null,
      pushedCount: 0,
      unregisteredCount: 0,
      failedCount: 0,
      attempts: 0,
      createdTime: now,
      updatedTime: now,
      finishedTime: null,
    });
  }
}
