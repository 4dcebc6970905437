import { MemoryRateLimitStore, type RateLimitStore } from '@app/core';
import { Logger } from '@nestjs/common';
import { AUTHENTICATED_DEVICE_MS, AuthenticatedDevices } from './authenticated-devices';

const SERIAL = '5f0c2a9e4b7d41c3a8e6d2f1b0c9a7e4';
const HOUR = AUTHENTICATED_DEVICE_MS;
// The start of a period, so that times within it are easy to place.
const START = 480_000 * HOUR;

/** `seen` does not wait for the store: let its hit land before looking. */
const settle = () => Promise.resolve();

describe('AuthenticatedDevices', () => {
  let devices: AuthenticatedDevices;

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  beforeEach(() => {
    jest.useFakeTimers({ now: START });
    devices = new AuthenticatedDevices(new MemoryRateLimitStore());
  });
  afterEach(() => jest.useRealTimers());

  it('ties a serial number to the address that authenticated for it, and to no other', async () => {
    devices.seen('198.51.100.7', SERIAL);
    await settle();
    expect(await devices.wasSeen('198.51.100.7', SERIAL)).toBe(true);
    expect(await devices.wasSeen('198.51.100.8', SERIAL)).toBe(false);
    expect(await devices.wasSeen('198.51.100.7', SERIAL.replace('5f', '6f'))).toBe(false);
  });

  it('takes an IPv6 address by its /64, and an IPv4-mapped one as IPv4', async () => {
    devices.seen('2001:db8:1:2::10', SERIAL);
    devices.seen('::ffff:203.0.113.9', SERIAL);
    await settle();
    expect(await devices.wasSeen('2001:db8:1:2:aaaa::1', SERIAL)).toBe(true);
    expect(await devices.wasSeen('2001:db8:1:3::10', SERIAL)).toBe(false);
    expect(await devices.wasSeen('203.0.113.9', SERIAL)).toBe(true);
  });

  it('compares serial numbers without regard to case', async () => {
    devices.seen('198.51.100.7', SERIAL.toUpperCase());
    await settle();
    expect(await devices.wasSeen('198.51.100.7', SERIAL)).toBe(true);
  });

  it.each([
    ['at the start of a period', 0],
    ['in the middle of one', HOUR / 2],
    ['at the very end of one', HOUR - 1],
  ])(
    'finds a sighting made %s for a whole period after, and none two periods after',
    async (_label, offset) => {
      jest.setSystemTime(START + offset);
      devices.seen('198.51.100.7', SERIAL);
      await settle();
      for (const later of [1, HOUR / 2, HOUR - 1, HOUR]) {
        jest.setSystemTime(START + offset + later);
        expect({ later, seen: await devices.wasSeen('198.51.100.7', SERIAL) }).toEqual({
          later,
          seen: true,
        });
      }
      jest.setSystemTime(START + offset + 2 * HOUR);
      expect(await devices.wasSeen('198.51.100.7', SERIAL)).toBe(false);
    },
  );

  it('keeps a device that authenticates again and again seen, across periods', async () => {
    for (let minute = 0; minute <= 180; minute += 20) {
      jest.setSystemTime(START + minute * 60_000);
      devices.seen('198.51.100.7', SERIAL);
      await settle();
      jest.setSystemTime(START + (minute + 19) * 60_000);
      expect(await devices.wasSeen('198.51.100.7', SERIAL)).toBe(true);
    }
  });

  it('reads as not seen, without throwing, when the store fails', async () => {
    const failing: RateLimitStore = {
      hit: () => Promise.reject(new Error('store down')),
      peek: () => Promise.reject(new Error('store down')),
      close: () => Promise.resolve(),
    };
    const blind = new AuthenticatedDevices(failing);
    blind.seen('198.51.100.7', SERIAL);
    await settle();
    expect(await blind.wasSeen('198.51.100.7', SERIAL)).toBe(false);
  });
});
