import { newId } from '@app/core';
import { HolderChanges, type HolderChange, type Pass } from '@app/passes';
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
    this.hooks.register((manager, pass) => this.enqueue(manager, pass));
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
