import {
  APP_CONFIG,
  ConfigError,
  isUniqueViolation,
  stampCreated,
  type AppConfig,
} from '@app/core';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Organisation } from '../entities/organisation.entity';
import { User } from '../entities/user.entity';
import { weakPasswordReason } from '../dto/password-policy';
import { hashPassword } from './credentials';
import { WorkspacesService } from './workspaces.service';

const FALLBACK_ADMIN_EMAIL = 'admin@example.com';

/**
 * First start: with no user in the database, creates an organisation, a default workspace
 * with its default account, and the owner from BOOTSTRAP_ADMIN_EMAIL/PASSWORD. Without
 * those, the owner is admin@example.com with a random password printed once.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.dataSource.getRepository(User).count({ take: 1 })) > 0) return;

    const configured = this.config.bootstrapAdmin;
    const email = (configured.email ?? FALLBACK_ADMIN_EMAIL).toLowerCase();
    if (configured.password !== undefined) {
      // The owner would otherwise start with a password from the top of every guessing list.
      // Checked here, not at config load: the variable only matters while there is no user.
      const weak = weakPasswordReason(configured.password, email);
      if (weak !== null) {
        throw new ConfigError([`BOOTSTRAP_ADMIN_PASSWORD ${weak}: choose another one`]);
      }
    }
    const password = configured.password ?? randomBytes(18).toString('base64url');
    const passwordHash = await hashPassword(password);

    try {
      await this.dataSource.transaction(async (manager) => {
        const organisation = stampCreated(
          manager.create(Organisation, { name: 'My organisation' }),
          null,
        );
        await manager.insert(Organisation, organisation);
        const owner = stampCreated(
          manager.create(User, {
            organisationId: organisation.id,
            email,
            passwordHash,
            role: 'owner',
            removedTime: null,
            tokenVersion: 0,
            credentialsChangedTime: null,
          }),
          null,
        );
        await manager.insert(User, owner);
        await this.workspaces.createWithDefaults(
          manager,
          organisation.id,
          'Default workspace',
          owner.id,
        );
      });
    } catch (error) {
      // Another instance starting at the same moment created the owner first.
      if (isUniqueViolation(error)) return;
      throw error;
    }

    if (configured.password === undefined) {
      // Printed once, on purpose: this is the only way to learn the generated password.
      this.logger.warn(
        `Created the first owner ${email} with password ${password} — sign in and change it, or set BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD`,
      );
    } else {
      this.logger.log(`Created the first owner ${email}`);
    }
  }
}
