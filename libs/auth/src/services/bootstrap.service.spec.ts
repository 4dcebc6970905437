import { ConfigError, loadConfig } from '@app/core';
import type { DataSource } from 'typeorm';
import { BootstrapService } from './bootstrap.service';
import type { WorkspacesService } from './workspaces.service';

/** A database without users: the first start that would create the owner. */
function emptyDatabase() {
  const transaction = jest.fn();
  const dataSource = {
    getRepository: () => ({ count: () => Promise.resolve(0) }),
    transaction,
  } as unknown as DataSource;
  return { dataSource, transaction };
}

describe('BootstrapService', () => {
  it.each(['password123', 'aaaaaaaaaaaa', 'owner@brand.example'])(
    'refuses to create the first owner with a weak BOOTSTRAP_ADMIN_PASSWORD (%j)',
    async (password) => {
      const { dataSource, transaction } = emptyDatabase();
      const config = loadConfig({
        BOOTSTRAP_ADMIN_EMAIL: 'owner@brand.example',
        BOOTSTRAP_ADMIN_PASSWORD: password,
      });
      const service = new BootstrapService(dataSource, {} as WorkspacesService, config);
      await expect(service.onApplicationBootstrap()).rejects.toThrow(ConfigError);
      await expect(service.onApplicationBootstrap()).rejects.toThrow(/BOOTSTRAP_ADMIN_PASSWORD/);
      expect(transaction).not.toHaveBeenCalled();
    },
  );
});
