import { RATE_LIMIT_STORE, type RateLimitStore } from '@app/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { registrationSource } from '../registration-source';

/**
 * How long after a device sent a serial number's token the `/log` lines from its address that
 * name that serial number are tied to it. Wallet posts a task's errors as the task fails, so an
 * hour is ample; a shorter time would only shrink what a neighbour behind the same address
 * could post as the device.
 */
export const AUTHENTICATED_DEVICE_MS = 3_600_000;

/**
 * Which client addresses (an IPv6 address by its /64, as registrations count sources) sent a
 * serial number's `ApplePass` token to the web service lately. Apple's `/log` carries no
 * credentials, so this is what ties a log line to a device that holds the pass: the line names
 * a serial number its address just authenticated for.
 *
 * Kept in the rate-limit store, so every instance sees what any of them was sent (with Redis).
 * Its windows run from their first hit, so a sighting is counted under the period of
 * {@link AUTHENTICATED_DEVICE_MS} it falls in, in a window of two periods, and looked for under
 * the current period and the one before: one within the last period is always found, none
 * older than two.
 */
@Injectable()
export class AuthenticatedDevices {
  private readonly logger = new Logger('PassKit');

  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  /**
   * Notes an authenticated request. Not awaited: a device's registration or download never
   * waits for it, and a store that fails leaves its lines unverified, nothing worse.
   */
  seen(clientIp: string, serialNumber: string): void {
    const key = sightingKey(clientIp, serialNumber, periodOf(Date.now()));
    this.store.hit(key, 2 * AUTHENTICATED_DEVICE_MS).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'Rate-limit store failed; device sighting not kept');
    });
  }

  /** Whether the address authenticated for the serial number lately; false when unsure. */
  async wasSeen(clientIp: string, serialNumber: string): Promise<boolean> {
    const period = periodOf(Date.now());
    try {
      for (const each of [period, period - 1]) {
        if ((await this.store.peek(sightingKey(clientIp, serialNumber, each))) !== null) {
          return true;
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'Rate-limit store failed; device log kept as unverified');
    }
    return false;
  }
}

const periodOf = (time: number): number => Math.floor(time / AUTHENTICATED_DEVICE_MS);

// Serial numbers are compared as the log's reader finds them: ours are lower-case.
const sightingKey = (clientIp: string, serialNumber: string, period: number): string =>
  `passkit-device:${registrationSource(clientIp)}:${serialNumber.toLowerCase()}:${period}`;
