import { APP_CONFIG, UnauthorizedError, type AppConfig } from '@app/core';
import { Pass } from '@app/passes';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PassPackageService, type PassPackage } from '../package/pass-package.service';
import { PassTokenService } from './pass-token.service';
import { RegistrationBudget } from './registration-budget';
import { RegistrationsService } from './registrations.service';

const APPLE_PASS_SCHEME = /^ApplePass\s+(\S+)$/;

/** Apple's PassKit web service, as Wallet on the device calls it. */
@Injectable()
export class PassKitService {
  private readonly logger = new Logger('PassKit');

  constructor(
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    private readonly tokens: PassTokenService,
    private readonly registrations: RegistrationsService,
    private readonly registrationBudget: RegistrationBudget,
    private readonly packages: PassPackageService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async register(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    device: { libraryId: string; pushToken: string; clientIp: string },
  ): Promise<'created' | 'existing'> {
    const pass = await this.authorised(passTypeId, serialNumber, authorization);
    await this.registrationBudget.spend(device.clientIp, pass.id);
    return this.registrations.register(pass, device.libraryId, device.pushToken);
  }

  async unregister(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    deviceLibraryId: string,
  ): Promise<void> {
    const pass = await this.authorised(passTypeId, serialNumber, authorization);
    await this.registrations.unregister(pass, deviceLibraryId);
  }

  async updatedSince(deviceLibraryId: string, passTypeId: string, tag: string | undefined) {
    if (passTypeId !== this.config.walletA.passTypeId) return null;
    const since = tag !== undefined && /^\d{1,15}$/.test(tag) ? Number(tag) : undefined;
    return this.registrations.updatedSince(deviceLibraryId, since);
  }

  /** The current package; a deleted pass comes back voided so the device marks it so. */
  async latest(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
  ): Promise<PassPackage> {
    const pass = await this.authorised(passTypeId, serialNumber, authorization);
    return this.packages.packageFor(pass);
  }

  log(entries: string[]): void {
    for (const entry of entries.slice(0, 100))
      this.logger.warn({ deviceLog: entry.slice(0, 2000) }, 'Wallet device log');
  }

  /**
   * The pass the `ApplePass <token>` header is for. Unknown passes and wrong tokens read the
   * same (401), so serial numbers cannot be probed.
   */
  private async authorised(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
  ): Promise<Pass> {
    const token = APPLE_PASS_SCHEME.exec(authorization ?? '')?.[1];
    const pass =
      token !== undefined && passTypeId === this.config.walletA.passTypeId
        ? await this.passes.findOneBy({ id: serialNumber })
        : null;
    if (pass === null || token === undefined || !this.tokens.matches(pass, token)) {
      throw new UnauthorizedError('Request not authorized');
    }
    return pass;
  }
}
