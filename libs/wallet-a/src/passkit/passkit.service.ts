import { APP_CONFIG, UnauthorizedError, type AppConfig } from '@app/core';
import { Holder, Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
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
  constructor(
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
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
    const { pass, holder } = await this.authorised(passTypeId, serialNumber, authorization);
    // A holder's registrations spend the pass's budget: the pass's counters move with them.
    await this.registrationBudget.spend(device.clientIp, pass.id);
    return this.registrations.register(pass, holder, device.libraryId, device.pushToken);
  }

  async unregister(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    deviceLibraryId: string,
  ): Promise<void> {
    await this.authorised(passTypeId, serialNumber, authorization);
    await this.registrations.unregister(serialNumber, deviceLibraryId);
  }

  async updatedSince(deviceLibraryId: string, passTypeId: string, tag: string | undefined) {
    if (passTypeId !== this.config.walletA.passTypeId) return null;
    const since = tag !== undefined && /^\d{1,15}$/.test(tag) ? Number(tag) : undefined;
    return this.registrations.updatedSince(deviceLibraryId, since);
  }

  /**
   * The current package of the shared pass or of a holder's copy; a deleted pass or a voided
   * holder comes back voided so the device marks it so.
   */
  async latest(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
  ): Promise<PassPackage> {
    const { pass, holder } = await this.authorised(passTypeId, serialNumber, authorization);
    return holder === null
      ? this.packages.packageFor(pass)
      : this.packages.packageForHolder(pass, holder);
  }

  /**
   * The pass (and holder, for a holder's serial number) the `ApplePass <token>` header is for:
   * the shared pass's serial is its id and takes its token, a holder's serial takes only that
   * holder's token. Unknown serials and wrong tokens read the same (401), so serial numbers
   * cannot be probed.
   */
  private async authorised(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
  ): Promise<{ pass: Pass; holder: Holder | null }> {
    const token = APPLE_PASS_SCHEME.exec(authorization ?? '')?.[1];
    if (token !== undefined && passTypeId === this.config.walletA.passTypeId) {
      const pass = await this.passes.findOneBy({ id: serialNumber });
      if (pass !== null && this.tokens.matches(pass, token)) return { pass, holder: null };
      if (pass === null) {
        const holder = await this.holders.findOneBy({ serialNumber });
        if (holder !== null && this.tokens.matches(holder, token)) {
          return { pass: await this.passes.findOneByOrFail({ id: holder.passId }), holder };
        }
      }
    }
    throw new UnauthorizedError('Request not authorized');
  }
}
