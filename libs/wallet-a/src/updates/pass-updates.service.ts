import { newId } from '@app/core';
import { HolderChanges, type Pass } from '@app/passes';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PushJob } from './push-job.entity';

/** Queues "this pass changed" pushes in the transaction of the change itself. */
@Injectable()
export class PassUpdatesService implements OnModuleInit {
  constructor(private readonly hooks: HolderChanges) {}

  onModuleInit(): void {
    this.hooks.register((manager, pass) => this.enqueue(manager, pass));
  }

  async enqueue(manager: EntityManager, pass: Pass): Promise<void> {
    const now = new Date();
    await manager.insert(PushJob, {
      id: newId(),
      workspaceId: pass.workspaceId,
      passId: pass.id,
      passVersion: pass.version,
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
