import { APP_CONFIG, FailureCounter, UnauthorizedError, type AppConfig } from '@app/core';
import { Holder, Pass } from '@app/passes';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { FetchConfirmations } from '../delivery/fetch-confirmations';
import { AuthenticatedDevices } from '../device-logs/authenticated-devices';
import { PassPackageService, type PassPackage } from '../package/pass-package.service';
import { PassTokenService } from '../signing/pass-token.service';
import { registrationSource } from '../registration-source';
import { SerialOwners } from '../signing/serial-owners';
import { RegistrationsService } from './registrations.service';

const APPLE_PASS_SCHEME = /^ApplePass\s+(\S+)$/;
const REFUSED_WINDOW_MS = 60_000;

/** The pass (and holder, for a holder's serial) a device's credentials are for. */
interface DeviceCredentials {
  pass: Pick<Pass, 'id' | 'workspaceId'>;
  holder: Pick<Holder, 'id' | 'serialNumber'> | null;
}

/** Who is calling the web service: the client IP its refusals are counted against. */
export interface DeviceCaller {
  clientIp: string;
}

/** Apple's PassKit web service, as Wallet on the device calls it. */
@Injectable()
export class PassKitService {
  constructor(
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
    private readonly tokens: PassTokenService,
    private readonly owners: SerialOwners,
    private readonly registrations: RegistrationsService,
    private readonly failures: FailureCounter,
    private readonly packages: PassPackageService,
    private readonly fetches: FetchConfirmations,
    private readonly devices: AuthenticatedDevices,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async register(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    device: DeviceCaller & { libraryId: string; pushToken: string },
  ): Promise<'created' | 'existing'> {
    const { pass, holder } = await this.credentialsOf(
      passTypeId,
      serialNumber,
      authorization,
      device,
    );
    return this.registrations.register({
      pass,
      serialNumber: holder?.serialNumber ?? pass.id,
      holderId: holder?.id ?? null,
      deviceLibraryId: device.libraryId,
      pushToken: device.pushToken,
      // A holder's copy is bounded per holder; only the shared pass's public token per source.
      source: holder === null ? registrationSource(device.clientIp) : null,
    });
  }

  async unregister(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    device: DeviceCaller & { libraryId: string },
  ): Promise<void> {
    await this.credentialsOf(passTypeId, serialNumber, authorization, device);
    await this.registrations.unregister(serialNumber, device.libraryId);
  }

  /**
   * The device's passes changed after the tag. Apple's protocol sends no credentials here, so a
   * device with no registration counts as a refusal: probing ids costs a caller its budget.
   */
  async updatedSince(
    deviceLibraryId: string,
    passTypeId: string,
    tag: string | undefined,
    caller: DeviceCaller,
  ) {
    await this.assertNotRefusedTooOften(caller);
    const since = tag !== undefined && /^\d{1,15}$/.test(tag) ? Number(tag) : undefined;
    const updates =
      passTypeId === this.config.walletA.passTypeId
        ? await this.registrations.updatedSince(deviceLibraryId, since)
        : undefined;
    if (updates === undefined) await this.countRefusal(caller);
    return updates ?? null;
  }

  /**
   * The current package of the shared pass or of a holder's copy; a deleted pass or a voided
   * holder comes back voided so the device marks it so. `delivered` is for the caller to call
   * once the device has it (200, or 304 because it had it already).
   */
  async latest(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    caller: DeviceCaller,
  ): Promise<{ pkpass: PassPackage; delivered: () => void }> {
    const { pass, holder } = await this.authorised(passTypeId, serialNumber, authorization, caller);
    const pkpass = await (holder === null
      ? this.packages.packageFor(pass)
      : this.packages.packageForHolder(pass, holder));
    return { pkpass, delivered: () => this.fetches.record(pass, holder) };
  }

  /**
   * The pass (and holder, for a holder's serial number) the `ApplePass <token>` header is for:
   * the shared pass's serial is its id and takes its token, a holder's serial takes only that
   * holder's token; the caller's address is noted as one that holds it, for its device logs.
   * Unknown serials and wrong tokens read the same (401), so serial numbers cannot be probed,
   * and count against the caller's IP: past `PASSKIT_REFUSED_PER_IP_PER_MINUTE` it is refused
   * (429) before anything is looked up. Devices with the right token are never limited, however
   * many share an address (docs/decisions.md, "PassKit web service").
   */
  private async authorised(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    caller: DeviceCaller,
  ): Promise<{ pass: Pass; holder: Holder | null }> {
    await this.assertNotRefusedTooOften(caller);
    const token = APPLE_PASS_SCHEME.exec(authorization ?? '')?.[1];
    if (token !== undefined && passTypeId === this.config.walletA.passTypeId) {
      const pass = await this.passes.findOneBy({ id: serialNumber });
      if (pass !== null && this.tokens.matches(pass, token)) {
        this.devices.seen(caller.clientIp, pass.id);
        return { pass, holder: null };
      }
      if (pass === null) {
        const holder = await this.holders.findOneBy({ serialNumber });
        if (holder !== null && this.tokens.matches(holder, token)) {
          this.devices.seen(caller.clientIp, holder.serialNumber);
          return { pass: await this.passes.findOneByOrFail({ id: holder.passId }), holder };
        }
      }
    }
    await this.countRefusal(caller);
    throw new UnauthorizedError('Request not authorized');
  }

  /**
   * {@link authorised} for the routes that need only who the device is (registrations, the hot
   * path of a launch): the few columns that tell, read once per serial number ({@link
   * SerialOwners}), not the pass and holder entities.
   */
  private async credentialsOf(
    passTypeId: string,
    serialNumber: string,
    authorization: string | undefined,
    caller: DeviceCaller,
  ): Promise<DeviceCredentials> {
    await this.assertNotRefusedTooOften(caller);
    const token = APPLE_PASS_SCHEME.exec(authorization ?? '')?.[1];
    if (token !== undefined && passTypeId === this.config.walletA.passTypeId) {
      const owner = await this.owners.ownerOf(serialNumber);
      if (owner !== null && this.tokens.matches({ walletATokenHash: owner.tokenHash }, token)) {
        this.devices.seen(caller.clientIp, serialNumber);
        return {
          pass: { id: owner.passId, workspaceId: owner.workspaceId },
          holder: owner.holderId === null ? null : { id: owner.holderId, serialNumber },
        };
      }
    }
    await this.countRefusal(caller);
    throw new UnauthorizedError('Request not authorized');
  }

  private assertNotRefusedTooOften(caller: DeviceCaller): Promise<void> {
    return this.failures.assertBelow(refusedKey(caller), this.config.walletA.refusedPerIpPerMinute);
  }

  private async countRefusal(caller: DeviceCaller): Promise<void> {
    await this.failures.record(refusedKey(caller), REFUSED_WINDOW_MS);
  }
}

const refusedKey = (caller: DeviceCaller) => `passkit-refused:${caller.clientIp}`;
